#include "sim/report/summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dlsim {

double percentile_sorted(std::span<const double> v, double p) {
  if (v.empty()) return 0;
  double pos = p / 100.0 * static_cast<double>(v.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

namespace {

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

} // namespace

Summary summarize(const SimState& s, const RunResult& result, double allocated_gpu_s,
                  double effective_gpu_s, const std::string& policy, std::uint64_t seed) {
  Summary out;
  out.policy = policy;
  out.seed = seed;
  out.jobs = s.jobs.size();
  out.events = result.events;
  out.skipped_bad_jobs = s.workload->skipped_bad_jobs;
  std::vector<double> jct;
  std::vector<double> queue;
  SimTime last_finish = 0;
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    const JobState& job = s.jobs[j];
    SimTime submit = s.workload->jobs[j].request.submit;
    if (job.status == JobStatus::kFinished) {
      ++out.finished;
      jct.push_back(to_seconds(job.end - submit));
      last_finish = std::max(last_finish, job.end);
    } else if (job.status == JobStatus::kCancelled) {
      ++out.cancelled;
    }
    if (job.first_start >= 0) queue.push_back(to_seconds(job.first_start - submit));
    out.trace_failed += s.workload->jobs[j].trace_status == TraceStatus::kFailed;
    out.trace_killed += s.workload->jobs[j].trace_status == TraceStatus::kKilled;
    out.preemptions += job.preemptions;
    out.migrations += job.migrations;
  }
  out.unfinished = out.jobs - out.finished - out.failed - out.cancelled;
  std::sort(jct.begin(), jct.end());
  std::sort(queue.begin(), queue.end());
  out.jct_mean_s = mean(jct);
  out.jct_median_s = percentile_sorted(jct, 50);
  out.jct_p95_s = percentile_sorted(jct, 95);
  out.jct_p99_s = percentile_sorted(jct, 99);
  out.queue_mean_s = mean(queue);
  out.queue_median_s = percentile_sorted(queue, 50);
  out.queue_p95_s = percentile_sorted(queue, 95);
  SimTime first_submit = s.workload->jobs.empty() ? 0 : s.workload->jobs.front().request.submit;
  SimTime end = out.unfinished == 0 ? last_finish : result.end;
  out.makespan_s = to_seconds(end - first_submit);
  double available = static_cast<double>(s.gpu_count) * out.makespan_s;
  if (available > 0) {
    out.gpu_util_alloc = allocated_gpu_s / available;
    out.gpu_util_effective = effective_gpu_s / available;
  }
  return out;
}

} // namespace dlsim
