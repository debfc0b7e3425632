// Jobs whose batch size changes during training, as Shockwave's simulator changes them
// (uw-mad-dash/shockwave scheduler/scheduler.py `_simulate_gns`, `_simulate_accordion`,
// `_scale_bs_and_iters`, and scheduler/utils.py `get_gns_bs_pattern`; Zheng et al., NSDI'23):
// a trace job marked `gns` or `accordion` gets one phase (Trace::phase_plans) per stretch of
// epochs it trains at one batch size, each running at the measured throughput of that batch
// size (trace.batch_sizes: shockwave; docs/gavel.md#batch-sizes-that-change).
#pragma once

#include "workloads/measured_throughputs.h"
#include "workloads/trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dlsim {

// A job type's family and batch size: "ResNet-18 (batch size 16)" -> {"ResNet-18", 16}.
struct BatchJobType {
  std::string family;
  std::uint32_t batch = 0;
};

// The batch size of each epoch 0, 1, ..., epochs - 1 of a job of `family` at trace batch size
// `batch` on k GPUs in `mode` (1 gns, 2 accordion), as Shockwave's simulator sets it; `known`
// says whether the throughputs file measures a batch size at k GPUs (Shockwave refuses a change
// to one it does not). Empty for a family Shockwave has no dataset size for.
std::vector<std::uint32_t>
shockwave_batch_sizes(const BatchJobType& type, std::uint32_t k, std::uint8_t mode,
                      std::uint32_t epochs, const std::function<bool(std::uint32_t batch)>& known);

// Shockwave's dataset sizes (scheduler.py dataset_size_dict): samples per epoch; 0 if unknown.
std::uint32_t shockwave_dataset_size(const std::string& family);

// Gives `job` (its model the measured one of `type_model` at its scale factor; its iterations
// Gavel's steps over the scale factor) its phases when its batch_mode is gns or accordion.
void plan_batch_sizes(Trace& trace, TraceJob& job, const std::string& type_model,
                      MeasuredModels& models);

} // namespace dlsim
