// The run's summary: the numbers papers report (JCT, queueing delay, makespan, utilization).
#pragma once

#include "sim/runtime/simulation.h"

#include <cstdint>
#include <span>
#include <string>

namespace dlsim {

struct Summary {
  std::string policy;
  std::uint64_t seed = 0;
  std::uint64_t jobs = 0;
  std::uint64_t finished = 0;
  std::uint64_t failed = 0; // always 0: no failure model yet; kept so summary.json keeps its keys
  std::uint64_t cancelled = 0;  // stopped by the policy (e.g. search trials cut early)
  std::uint64_t unfinished = 0; // still pending or running at the end (--until, or stuck)
  std::uint64_t skipped_bad_jobs = 0;
  std::uint64_t trace_failed = 0; // jobs the trace marks failed (replayed with their run time)
  std::uint64_t trace_killed = 0; // jobs the trace marks killed or cancelled
  double makespan_s = 0;          // first submission to last finish (or the end of the run)
  double jct_mean_s = 0, jct_median_s = 0, jct_p95_s = 0, jct_p99_s = 0;
  double queue_mean_s = 0, queue_median_s = 0, queue_p95_s = 0;
  double gpu_util_alloc = 0;     // allocated GPU-seconds / available GPU-seconds
  double gpu_util_effective = 0; // the same, weighted by each job's GPU utilization
  std::uint64_t preemptions = 0;
  std::uint64_t migrations = 0;
  std::uint64_t events = 0;
};

// Linear-interpolation percentile of sorted values (numpy's default): position p/100*(n-1).
double percentile_sorted(std::span<const double> sorted, double p);

Summary summarize(const SimState& state, const RunResult& result, double allocated_gpu_s,
                  double effective_gpu_s, const std::string& policy, std::uint64_t seed);

} // namespace dlsim
