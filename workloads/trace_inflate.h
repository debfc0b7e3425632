// The workload of the FGD paper's experiments (Weng et al., USENIX ATC'23, §6.1, "workload
// inflation"), as a trace transformation between selecting a trace and building the workload
// (trace.inflate, docs/fragmentation.md#the-inflated-workload). Its rule is that of FGD's
// simulator (hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator: SortClusterPods,
// TunePodsByNodeTotalResource):
//
// 1. The jobs are shuffled uniformly.
// 2. Their GPU request (workers x devices per worker x share, in milli-GPUs) is brought to `tune`
//    x the cluster's GPUs. Below it, jobs are drawn uniformly with replacement from the trace
//    as read and appended, each a copy named `NAME-tuned-K`, until one is drawn whose milli-GPUs
//    per device would take the total past the target: that one is not added and drawing stops
//    (FGD compares the share per GPU, so a multi-GPU job drawn last may take the total past it).
//    Jobs of no GPU count 0 and never stop the drawing. Above it, jobs drawn uniformly are
//    removed until the total is within it.
// 3. The jobs arrive one per second in that order, from 0, and none departs before the last has
//    arrived: job i of N runs N - i seconds (on its reference device), so all end at N.
//
// One random stream, named "trace.inflate", from the run's seed drives the shuffle and the draws.
#pragma once

#include "workloads/trace.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace dlsim {

struct InflateReport {
  std::size_t read = 0;                   // jobs before
  std::size_t added = 0;                  // copies appended
  std::size_t removed = 0;                // jobs removed (tune below the trace's request)
  std::int64_t milli_before = 0;          // GPU request before, milli-GPUs
  std::int64_t milli_after = 0;           // after
  std::int64_t capacity_milli = 0;        // the cluster's GPUs x 1000
  [[nodiscard]] std::string line() const; // for the user
};

// A job's GPU request in milli-GPUs: workers x devices per worker x round(share x 1000).
std::int64_t gpu_request_milli(const TraceJob& job);

// Applies the rule above. `tune` > 0 (an InputError naming trace.inflate otherwise), `gpus` > 0
// (the cluster's GPU count; an InputError when 0).
InflateReport inflate_trace(Trace& trace, double tune, std::uint32_t gpus, std::uint64_t seed);

} // namespace dlsim
