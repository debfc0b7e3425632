// Measured throughputs per job type, device type and scale factor, as Gavel
// (stanford-futuredata/gavel scheduler/simulation_throughputs.json) and Shockwave
// (uw-mad-dash/shockwave scheduler/tacc_throughputs.json) publish them, read as they are
// (trace.throughputs, docs/gavel.md#measured-throughputs). With such a file, each job of a Gavel
// or Shockwave trace runs at the measured throughput of its job type at its scale factor on each
// device type: that is the runtime's truth, and the public profile policies read.
//
// The file: {device type: {"('Job type', k)": {"null": steps/s alone, "('Other', k)": [this
// job's, the other's steps/s packed together], ...}}}. Device types are matched to the
// cluster's by name without case ("v100" = V100); Gavel's "_unconsolidated" types (a job's
// workers spread over servers) are checked and not used.
#pragma once

#include "sim/cluster/device_catalog.h"
#include "workloads/model_zoo.h"
#include "workloads/trace.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dlsim {

struct MeasuredThroughputs {
  std::string file;
  struct Entry {
    std::string job_type; // as the file writes it: "ResNet-18 (batch size 16)"
    // Steps per second of the whole job running alone, by the file's device type name
    // (lower case, "_unconsolidated" ones left out). 0 = cannot run there.
    std::map<std::string, double> alone;
  };
  // By (model name under configs/models/gavel.yaml's naming, scale factor).
  std::map<std::pair<std::string, std::uint32_t>, Entry> entries;
  // Co-located pairs read and checked: how many.
  std::size_t pairs = 0;
};

// Throws InputError naming the file and the key path for malformed JSON, a key that is not
// "('Job type', k)" with k >= 1, a value that is not a number (or a pair of numbers), or a
// negative throughput.
MeasuredThroughputs read_measured_throughputs(const std::string& file);

// The model name of a job type at scale factor k, as apply_measured_throughputs names it:
// "gavel_resnet18_bs16" at 4 -> "gavel_resnet18_bs16@4".
std::string measured_model_name(const std::string& model, std::uint32_t scale);

// Makes every job of `trace` run at the measured throughputs: for each distinct (model, workers)
// of its jobs, a zoo model `measured_model_name` whose time per iteration on each of the
// cluster's GPU types is workers / throughput (an iteration of a k-worker job is k of Gavel's
// steps, workloads/formats/gavel.h), unsupported where the file gives 0 or no value, with no
// communication modelled on top (the measurement includes it); the model's other facts
// (memory, utilization, family) are the zoo's model of that name where it has one. A job whose
// work the trace gives both as steps and as a recorded run time (Shockwave's form) then runs its
// steps. Throws InputError naming the throughputs file, the key and the trace line for a job
// whose (job type, scale factor) the file lacks.
// The measured models of a trace, made on first use.
class MeasuredModels {
public:
  MeasuredModels(Trace& trace, ModelZoo& zoo, const MeasuredThroughputs& measured,
                 const std::vector<DeviceType>& types);
  // The trace's model id (Trace::models) of `name` (gavel.yaml's naming) at scale factor k,
  // added to the zoo as measured_model_name; nullopt when the file does not measure it.
  std::optional<std::uint32_t> model(const std::string& name, std::uint32_t k);
  [[nodiscard]] const MeasuredThroughputs& measured() const { return measured_; }

private:
  Trace& trace_;
  ModelZoo& zoo_;
  const MeasuredThroughputs& measured_;
  const std::vector<DeviceType>& types_;
  std::map<std::pair<std::string, std::uint32_t>, std::uint32_t> made_;
};

// `each_job`, when given, is called for each job once it runs as its measured model, with the
// job type's model name (before "@k") and the models made so far (batch_size_plan.h).
void apply_measured_throughputs(
    Trace& trace, ModelZoo& zoo, const MeasuredThroughputs& measured,
    const std::vector<DeviceType>& types,
    const std::function<void(TraceJob&, const std::string&, MeasuredModels&)>& each_job = {});

} // namespace dlsim
