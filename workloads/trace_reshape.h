// Splitting workers that no node can hold into node-sized ones, between selecting a trace and
// building the workload (trace.reshape, docs/traces.md#workers-larger-than-a-node).
//
// Readers that record only a job's GPU total (Philly, Tiresias, Muri, Helios) shape it for
// 8-GPU nodes (gpu_shape.h): on a cluster of 4-GPU nodes an 8-GPU job would never run.
#pragma once

#include "sim/cluster/cluster.h"
#include "workloads/trace.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

// Whether reshape_to_nodes would split a job: its worker asks for more devices than any node
// holds of the types it accepts. Each distinct device_type text is looked up once, on creation.
class OversizedWorkers {
public:
  OversizedWorkers(const Trace& trace, const Cluster& cluster);
  // The most devices of the job's accepted types on one node (0: its device_type does not parse).
  [[nodiscard]] std::uint32_t capacity(const TraceJob& job) const {
    return job.device_type == kNoString ? any_gpu_ : by_text_[job.device_type];
  }
  [[nodiscard]] bool operator()(const TraceJob& job) const {
    const std::uint32_t cap = capacity(job);
    return cap > 0 && job.devices_per_worker > cap;
  }

private:
  std::vector<std::uint32_t> by_text_; // the most devices of the accepted types on one node
  std::uint32_t any_gpu_ = 0;          // the same for a job that names no device_type
};

// How many jobs reshape_to_nodes would split: for the hint of a "cannot fit" error.
std::size_t count_oversized_workers(const Trace& trace, const Cluster& cluster);

} // namespace dlsim
