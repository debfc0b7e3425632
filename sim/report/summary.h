// The run's summary: the numbers papers report (JCT, queueing delay, makespan, utilization).
#pragma once

#include "sim/report/metrics.h"
#include "sim/runtime/simulation.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dlsim {

// Metrics over the jobs submitted in a measurement window [from_s, to_s] (Gavel-style steady
// state: every job runs, only these are measured; docs/outputs.md#measurement-window).
struct WindowSummary {
  double from_s = 0, to_s = 0;
  std::uint64_t jobs = 0; // submitted in the window
  std::uint64_t finished = 0;
  std::uint64_t unfinished = 0; // not finished and not cancelled at the end
  bool jct_censored = false;    // as Summary's, over the window's jobs
  bool queue_censored = false;
  // Finished ones, and unfinished ones at their time so far (censored at the end of the run).
  double jct_mean_s = 0, jct_median_s = 0, jct_p95_s = 0, jct_p99_s = 0;
  // Queueing delay over the same jobs (docs/outputs.md#queueing-delay).
  double queue_mean_s = 0, queue_median_s = 0, queue_p95_s = 0;
  double slowdown_mean = 0, slowdown_max = 0; // finished ones with solo_s > 0
};

// The run's own keys, the first of summary.json; the summary metrics (summary_metric.h) add the
// others.
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
  // With unfinished jobs the statistics below are lower bounds, never figures over the finished
  // jobs alone: an unfinished job counts with its time so far, censored at the end of the run
  // (docs/outputs.md#unfinished-jobs). These say which are.
  bool jct_censored = false;      // some unfinished job is counted at its time so far
  bool queue_censored = false;    // as jct_censored: an unfinished job's queueing so far
  bool makespan_censored = false; // the run ended with jobs unfinished
  // A run that can never finish: jobs left unfinished, no event to come and no --until (a
  // deadlock such as two half-bound gangs, or a job no policy decision will start). The time
  // the last event was applied, in seconds.
  std::optional<double> deadlocked_at_s;
  double makespan_s = 0; // first submission to last finish (or the end of the run)
  double jct_mean_s = 0, jct_median_s = 0, jct_p95_s = 0, jct_p99_s = 0;
  double queue_mean_s = 0, queue_median_s = 0, queue_p95_s = 0;
  double gpu_util_alloc = 0;     // allocated GPU-seconds / available GPU-seconds
  double gpu_util_effective = 0; // the same, weighted by each job's GPU utilization
  // GPU-seconds during which some kernel ran / available: what nvidia-smi would average to.
  double gpu_util_busy = 0;
  // Jobs whose utilization alone is runtime.default_gpu_util (no trace value, no model): the
  // effective and busy figures count that assumed value for them (docs/outputs.md#assumed-
  // utilization). Set by the caller, which built the workload (Prepared::assumed_util_jobs).
  std::uint64_t util_assumed_jobs = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t migrations = 0;
  std::uint64_t events = 0;
  // The summary metrics' keys (summary_metric.h), in the order of their list: written after the
  // keys above.
  nlohmann::ordered_json metric_keys = nlohmann::ordered_json::object();
};

// The job's run time alone at its requested size (jobs.csv `solo_s`), to the microsecond: its
// work on its required type; for a set of types on the reference device when the set holds it,
// else on the set's fastest type for its model; otherwise on the reference device.
double solo_seconds(const Workload& w, std::size_t job);

// Linear-interpolation percentile of sorted values (numpy's default): position p/100*(n-1).
double percentile_sorted(std::span<const double> sorted, double p);

// The window's metrics; `to_s` may be +inf (no upper end). Unfinished jobs are censored at the
// end of the run (RunResult::end).
WindowSummary summarize_window(const SimState& state, const RunResult& result, double from_s,
                               double to_s);

class SummaryMetric;

// The run's own keys, from the final job records in one pass, which also hands each record to
// `job_metrics` (SummaryMetric::add_job); metric_keys is left empty.
Summary summarize(const SimState& state, const RunResult& result, const UtilizationMeter& meter,
                  const std::string& policy, std::uint64_t seed,
                  std::span<SummaryMetric* const> job_metrics = {});

} // namespace dlsim
