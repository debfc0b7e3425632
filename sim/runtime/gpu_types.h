// Which GPU types a job that names no device type may use, and in which order to try them.
#pragma once

#include "sim/cluster/cluster.h"
#include "sim/runtime/job.h"

#include <algorithm>
#include <vector>

namespace dlsim {

// Per ModelId of the workload: the types of `present` (the cluster's GPU types, or the types of
// a job's set that the cluster has) on which the model can train (PerfTable::supports), whose
// device memory holds the model (a data-parallel replica keeps the whole model on each device),
// fastest first for that model by the perf table, ties in catalog order. Model 0 (no model) needs
// no memory and is ordered by the types' relative throughput.
// `mem_gb`: the memory each model needs, by ModelId (note_model_memory below fills it), given by
// the caller so that a caller that reads every job anyway does not have this read them again.
std::vector<std::vector<DeviceTypeId>> gpu_types_by_model(const Cluster& cluster,
                                                          const Workload& workload,
                                                          const std::vector<DeviceTypeId>& present,
                                                          const std::vector<double>& mem_gb);

// The memory a model needs, from any job running it (the zoo sets one figure per model):
// `mem_gb` has one entry per ModelId (at least one), 0 until a job of that model is noted here.
inline void note_model_memory(std::vector<double>& mem_gb, const Workload& workload,
                              const JobRequest& r) {
  if (r.model < mem_gb.size())
    mem_gb[r.model] = std::max(mem_gb[r.model], workload.details_of(r).gpu_mem_gb);
}

} // namespace dlsim
