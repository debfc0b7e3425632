// Splitting workers that no node can hold into node-sized ones, between selecting a trace and
// building the workload (trace.reshape, docs/traces.md#workers-larger-than-a-node).
//
// Readers that record only a job's GPU total (Philly, Tiresias, Muri, Helios) shape it for
// 8-GPU nodes (gpu_shape.h): on a cluster of 4-GPU nodes an 8-GPU job would never run.
#pragma once

#include "sim/cluster/cluster.h"
#include "workloads/trace.h"

#include <cstddef>
#include <string>

namespace dlsim {

// What reshape_to_nodes did, for the user.
struct ReshapeReport {
  std::size_t reshaped = 0;  // jobs whose workers were split
  std::string first_example; // "job J: 1 x 8 -> 2 x 4 (a node holds at most 4)"
};

// Each job whose worker asks for more devices than any node holds of the types it accepts
// becomes k times as many workers of devices_per_worker / k devices, k the smallest factor that
// makes a worker fit. CPUs and memory per worker are divided by k; min and max workers are
// multiplied by k. The job's total devices, hence its work under linear scaling, are unchanged.
// Jobs whose device_type the cluster's catalog does not parse are left to build_workload. A split
// that would give more than 2^32 - 1 workers is an InputError naming the file and line.
ReshapeReport reshape_to_nodes(Trace& trace, const Cluster& cluster);

// How many jobs reshape_to_nodes would split: for the hint of a "cannot fit" error.
std::size_t count_oversized_workers(const Trace& trace, const Cluster& cluster);

} // namespace dlsim
