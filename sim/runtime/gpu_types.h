// Which GPU types a job that names no device type may use, and in which order to try them.
#pragma once

#include "sim/cluster/cluster.h"
#include "sim/runtime/job.h"

#include <vector>

namespace dlsim {

// Per ModelId of the workload: the types of `present` (the cluster's GPU types, or the types of
// a job's set that the cluster has) on which the model can train (PerfTable::supports), whose
// device memory holds the model (a data-parallel replica keeps the whole model on each device),
// fastest first for that model by the perf table, ties in catalog order. Model 0 (no model) needs
// no memory and is ordered by the types' relative throughput.
std::vector<std::vector<DeviceTypeId>> gpu_types_by_model(const Cluster& cluster,
                                                          const Workload& workload,
                                                          const std::vector<DeviceTypeId>& present);

} // namespace dlsim
