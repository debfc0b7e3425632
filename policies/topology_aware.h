// Topology-aware placement: the allocation whose communication pattern gets the most bandwidth
// on the links it would cross, given the flows already there, then the fewest hops.
// Source: Amaral et al., "Topology-Aware GPU Scheduling for Learning Workloads in Cloud
// Environments", SC'17 (place by the topology's communication cost and the links' current
// load); Gandiva (OSDI'18) and Tiresias (NSDI'19) on consolidating communication-heavy jobs.
#pragma once

#include "sim/runtime/view.h"

#include <optional>
#include <vector>

namespace dlsim {

// Devices of type t for `workers` workers of job j, or nullopt when they do not fit.
std::optional<std::vector<DeviceId>> place_topology_aware(const View& view, JobId j, DeviceTypeId t,
                                                          std::uint32_t workers);

} // namespace dlsim
