// The Horus placement cost (Yeung et al., "Horus: Interference-Aware and Prediction-Based
// Scheduling in Deep Learning Systems", IEEE TPDS 2021; the authors' simulator is public,
// github.com/matthewygf/GPUSchedule, core/scheduling/horus.py and infra/device.py): which GPU a
// job goes to, given the utilization it is expected to add. docs/utilization.md#the-cost-rule.
#pragma once

#include <optional>
#include <span>

namespace dlsim {

struct HorusParams {
  double mem_margin_gb = 0.5; // free memory that must remain after placing (500 MB)
  int max_tasks = 3;          // jobs a GPU may hold, the new one included
  double mem_weight = 1.3;    // MEMCOST
  double over_weight = 1.6;   // UTILCOST: the factor on utilization above 100%
};

// What the rule reads of one GPU.
struct HorusDevice {
  double memory_gb = 0; // capacity (0: not memory-checked)
  double held_gb = 0;   // summed footprint of the jobs on it
  double util_pct = 0;  // summed expected utilization of those jobs (percent)
  int tasks = 0;        // jobs on it
};

// nullopt when the job does not fit: the GPU already holds max_tasks jobs, or fewer than
// mem_margin_gb would stay free. Otherwise
//   cost = mem_weight x (held + job_mem) / memory + u / 100 + tasks,
//   u = |U_cur + U_job - 100|, times over_weight when U_cur + U_job > 100.
std::optional<double> horus_cost(const HorusParams& p, const HorusDevice& d, double job_mem_gb,
                                 double job_util_pct);

// The index of the fitting device of least cost (ties: the lowest index), or nullopt.
std::optional<std::size_t> horus_choose(const HorusParams& p, std::span<const HorusDevice> devices,
                                        double job_mem_gb, double job_util_pct);

} // namespace dlsim
