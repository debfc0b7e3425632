// The run's summary: the numbers papers report (JCT, queueing delay, makespan, utilization).
#pragma once

#include "sim/report/failure_metrics.h"
#include "sim/report/metrics.h"
#include "sim/runtime/simulation.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dlsim {

// Utilization of one device kind or type over the run (docs/outputs.md#utilization).
struct DeviceUtil {
  std::string name; // the kind ("gpu", "cpu", "xeon_phi", "fpga") or the type ("V100")
  DeviceKind kind = DeviceKind::kGpu;
  std::uint32_t devices = 0;
  double alloc = 0;     // allocated device-seconds / (devices x makespan_s)
  double effective = 0; // effective (useful) device-seconds / (devices x makespan_s)
};

// Fairness over finished jobs whose solo time is known (docs/outputs.md#fairness).
struct Fairness {
  std::uint64_t jobs = 0;  // finished jobs with solo_s > 0: the ones counted below
  std::uint64_t users = 0; // distinct users among them
  // Jain's index over the users' mean slowdowns, 1/users..1; none (not written) with fewer than
  // two users, where it would be 1 whatever the policy did.
  std::optional<double> jain_user_slowdown;
  double slowdown_mean = 0; // over jobs
  double slowdown_max = 0;
  double ftf_rho_mean = 0; // finish-time fairness rho = JCT / isolated JCT (solo_s)
  double ftf_rho_max = 0;
};

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
  std::vector<DeviceUtil> util_by_kind; // kinds the cluster has, in DeviceKind order
  std::vector<DeviceUtil> util_by_type; // types the cluster has, in the cluster's type order
  Fairness fairness;
  std::uint64_t preemptions = 0;
  std::uint64_t migrations = 0;
  std::uint64_t events = 0;
  std::optional<WindowSummary> window; // written only when the experiment sets one
  // Node CPU cores held by every job (GPU jobs' cpus_per_worker too) over the cores the cluster
  // has, over the makespan; written only when the workload has host tasks (docs/outputs.md).
  struct CpuCores {
    std::uint64_t host_tasks = 0; // jobs of 0 devices per worker
    double cores = 0;             // in the cluster
    double alloc = 0;             // held core-seconds / available core-seconds
  };
  std::optional<CpuCores> cpu_cores;
  // The GPU-sharing measures (report.fragmentation, docs/fragmentation.md#measures); written only
  // when measured.
  struct GpuSharing {
    double capacity_gpus = 0;
    double arrived_gpus = 0;   // requested by every job submitted
    double allocated_gpus = 0; // held after the last arrival's decision
    double frag_gpus = 0;      // expected fragmentation then
    // Allocated GPUs / the cluster's, in %, when the arrived workload was 100% and 130% of the
    // cluster's GPUs (FGD's per-1% buckets); -1 when the workload never reached it.
    double alloc_pct_at_100 = -1;
    double alloc_pct_at_130 = -1;
    double frag_pct_at_100 = -1;
    std::uint64_t unplaced_jobs = 0; // not placed at the decision of their arrival
    std::uint64_t typical_shapes = 0;
  };
  std::optional<GpuSharing> gpu_sharing;
  // Failures and checkpoints (docs/failures.md#measures): only when the experiment has them.
  std::optional<FailureSummary> failures;
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

Summary summarize(const SimState& state, const RunResult& result, const UtilizationMeter& meter,
                  const std::string& policy, std::uint64_t seed);

} // namespace dlsim
