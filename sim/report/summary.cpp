#include "sim/report/summary.h"

#include "sim/report/duration_stats.h"
#include "sim/report/summary_metric.h"

#include <algorithm>
#include <cmath>

namespace dlsim {

double percentile_sorted(std::span<const double> v, double p) {
  if (v.empty()) return 0;
  const PercentileRank r = percentile_rank(v.size(), p);
  return v[r.lo] + (v[r.hi] - v[r.lo]) * r.frac;
}

namespace {

// The device a job's solo run time is counted on: its required type; for a set of types, the
// reference device when the set holds it, else the set's fastest type for the job's model (the
// set has no measured time of its own); otherwise the reference device.
DeviceTypeId solo_device(const Workload& w, const JobRequest& req) {
  if (req.device_type >= 0) return static_cast<DeviceTypeId>(req.device_type);
  if (req.device_type != kTypeSet) return w.reference_device;
  const std::vector<DeviceTypeId>& set = w.type_sets.at(req.type_set);
  if (std::find(set.begin(), set.end(), w.reference_device) != set.end()) return w.reference_device;
  DeviceTypeId best = set.front();
  for (DeviceTypeId t : set) {
    if (w.perf.iter_time(req.model, t) < w.perf.iter_time(req.model, best)) best = t;
  }
  return best;
}

// JCT and queueing statistics of a Summary or a WindowSummary (same field names); sorts both.
// The durations are sorted as whole microseconds (sort_durations) and turned into seconds in
// that order: to_seconds is monotone, so this is the sorted vector of seconds the statistics
// were always taken from, and the mean adds the same values in the same order.
template <class Out>
void set_jct_stats(Out& out, std::vector<SimTime>& jct) {
  sort_durations(jct);
  out.jct_mean_s = mean_of_sorted(jct);
  out.jct_median_s = percentile_of_sorted(jct, 50);
  out.jct_p95_s = percentile_of_sorted(jct, 95);
  out.jct_p99_s = percentile_of_sorted(jct, 99);
}

template <class Out>
void set_queue_stats(Out& out, std::vector<SimTime>& queue) {
  sort_durations(queue);
  out.queue_mean_s = mean_of_sorted(queue);
  out.queue_median_s = percentile_of_sorted(queue, 50);
  out.queue_p95_s = percentile_of_sorted(queue, 95);
}

// Whether a job that did not finish counts in the statistics at its time so far, censored at
// the end of the run: it was submitted and not cancelled (a job not yet submitted when --until
// stopped the run has no time so far; a cancelled one has ended).
bool counts_censored(const JobState& job) {
  return job.status != JobStatus::kFinished && job.status != JobStatus::kCancelled &&
         job.status != JobStatus::kFuture;
}

// A job's queueing delay: the time it spent submitted and not finished without making progress
// (docs/outputs.md#queueing-delay), over the jobs the JCT statistics count: its JCT, or for an
// unfinished job its time so far, censored at the end of the run, less its progress time.
// Negative for the jobs the JCT statistics leave out (cancelled, or not yet submitted).
SimTime queue_delay(const SimState& s, const RunResult& r, std::size_t j, SimTime submit) {
  const JobState& job = s.jobs[j];
  const auto id = static_cast<JobId>(j);
  if (job.status == JobStatus::kFinished) return job.end - submit - progress_time(s, r, id);
  return counts_censored(job) ? r.end - submit - progress_time(s, r, id) : SimTime{-1};
}

// The queueing delays of the jobs that `take(j)` accepts, after the JCTs' vector is released:
// one vector of a value per job at a time, not two, at the end of a run whose jobs already fill
// memory (docs/performance.md).
template <class Out, class Take>
void collect_queue_stats(Out& out, const SimState& s, const RunResult& r, Take&& take) {
  std::vector<SimTime> queue;
  queue.reserve(s.jobs.size());
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    const SimTime delay = queue_delay(s, r, j, s.workload->jobs[j].request.submit);
    if (delay >= 0 && take(j)) queue.push_back(delay);
  }
  set_queue_stats(out, queue);
}

} // namespace

double solo_seconds(const Workload& w, std::size_t job) {
  const JobSpec& spec = w.jobs[job];
  DeviceTypeId type = solo_device(w, spec.request);
  const double s = spec.iterations * w.perf.iter_time(spec.request.model, type);
  // Up to the microsecond, less 1 ns of slack, as the runtime times a finish
  // (Simulation::reschedule): the job alone takes exactly this long, so a job that ran alone
  // has run_s == solo_s, never 1 µs more.
  if (!(s > 0)) return 0;
  return std::ceil(s * kMicrosPerSecond - 1e-3) / kMicrosPerSecond;
}

WindowSummary summarize_window(const SimState& s, const RunResult& result, double from_s,
                               double to_s) {
  const SimTime end = result.end;
  WindowSummary out;
  out.from_s = from_s;
  out.to_s = to_s;
  const Workload& w = *s.workload;
  std::vector<SimTime> jct;
  jct.reserve(s.jobs.size()); // as in summarize
  double slowdown_sum = 0;
  std::uint64_t slowdowns = 0;
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    SimTime submit = w.jobs[j].request.submit;
    double submit_s = to_seconds(submit);
    if (submit_s < from_s || submit_s > to_s) continue;
    const JobState& job = s.jobs[j];
    ++out.jobs;
    if (job.status == JobStatus::kFinished) {
      ++out.finished;
      jct.push_back(job.end - submit);
      double t = to_seconds(job.end - submit);
      double solo = solo_seconds(w, j);
      if (solo > 0) {
        slowdown_sum += t / solo;
        ++slowdowns;
        out.slowdown_max = std::max(out.slowdown_max, t / solo);
      }
    } else if (job.status != JobStatus::kCancelled) {
      ++out.unfinished;
      if (counts_censored(job)) {
        jct.push_back(end - submit);
        // A job still unfinished may wait again: its queueing so far is a lower bound too.
        out.jct_censored = true;
        out.queue_censored = true;
      }
    }
  }
  set_jct_stats(out, jct);
  std::vector<SimTime>().swap(jct);
  collect_queue_stats(out, s, result, [&](std::size_t j) {
    double submit_s = to_seconds(w.jobs[j].request.submit);
    return submit_s >= from_s && submit_s <= to_s;
  });
  out.slowdown_mean = slowdowns ? slowdown_sum / static_cast<double>(slowdowns) : 0.0;
  return out;
}

namespace {

// The queueing delays gathered in the pass over the jobs while they are mostly 0 (a run that
// keeps up): the zeros counted, the others kept up to a sixteenth of the jobs (1.7 MiB at 3.4M;
// pages never used are never touched). Past that, a second pass collects them all, once the
// JCTs' vector is released: one vector of a value per job at a time (docs/performance.md).
struct QueueDelays {
  explicit QueueDelays(std::size_t jobs) : cap(jobs / 16) { rest.reserve(cap); }
  void add(SimTime delay) {
    if (delay < 0 || !kept) return;
    if (delay == 0) {
      ++zeros;
    } else if (rest.size() < cap) {
      rest.push_back(delay);
    } else {
      kept = false;
    }
  }
  std::size_t cap;
  std::vector<SimTime> rest;
  std::size_t zeros = 0;
  bool kept = true;
};

void set_queue_stats(Summary& out, const SimState& s, const RunResult& result, QueueDelays& q) {
  if (q.kept) {
    sort_durations(q.rest);
    const SortedWithZeros queue{q.rest, q.zeros};
    out.queue_mean_s = mean_with_zeros(queue);
    out.queue_median_s = percentile_with_zeros(queue, 50);
    out.queue_p95_s = percentile_with_zeros(queue, 95);
  } else {
    std::vector<SimTime>().swap(q.rest);
    collect_queue_stats(out, s, result, [](std::size_t) { return true; });
  }
}

} // namespace

Summary summarize(const SimState& s, const RunResult& result, const UtilizationMeter& meter,
                  const std::string& policy, std::uint64_t seed,
                  std::span<SummaryMetric* const> job_metrics) {
  Summary out;
  out.policy = policy;
  out.seed = seed;
  out.jobs = s.jobs.size();
  out.events = result.events;
  out.skipped_bad_jobs = s.workload->skipped_bad_jobs;
  std::vector<SimTime> jct;
  // Room for every job at once, so that the vector never doubles and copies (a doubling at 3.4M
  // jobs was the run's peak memory); pages past the last value are never touched.
  jct.reserve(s.jobs.size());
  QueueDelays queue(s.jobs.size());
  SimTime last_finish = 0;
  // One pass over the records (a million jobs' are far larger than the cache).
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    const JobState& job = s.jobs[j];
    const JobSpec& spec = s.workload->jobs[j];
    SimTime submit = spec.request.submit;
    queue.add(queue_delay(s, result, j, submit));
    if (job.status == JobStatus::kFinished) {
      ++out.finished;
      jct.push_back(job.end - submit);
      last_finish = std::max(last_finish, job.end);
    } else if (job.status == JobStatus::kCancelled) {
      ++out.cancelled;
    } else if (counts_censored(job)) {
      jct.push_back(result.end - submit);
      // A job still unfinished may wait again: its queueing so far is a lower bound too.
      out.jct_censored = true;
      out.queue_censored = true;
    }
    out.trace_failed += spec.trace_status == TraceStatus::kFailed;
    out.trace_killed += spec.trace_status == TraceStatus::kKilled;
    out.preemptions += job.preemptions;
    out.migrations += job.migrations;
    for (SummaryMetric* m : job_metrics)
      m->add_job(s, j);
  }
  out.unfinished = out.jobs - out.finished - out.failed - out.cancelled;
  out.makespan_censored = out.unfinished > 0;
  // No event is left and no --until stopped the run, yet jobs are unfinished: no decision will
  // ever come to change that.
  if (out.unfinished > 0 && !result.hit_until) out.deadlocked_at_s = to_seconds(result.end);
  set_jct_stats(out, jct);
  std::vector<SimTime>().swap(jct);
  set_queue_stats(out, s, result, queue);
  SimTime first_submit = s.workload->jobs.empty() ? 0 : s.workload->jobs.front().request.submit;
  SimTime end = out.unfinished == 0 ? last_finish : result.end;
  out.makespan_s = to_seconds(end - first_submit);
  double available = static_cast<double>(s.gpu_count) * out.makespan_s;
  if (available > 0) {
    out.gpu_util_alloc = meter.allocated_gpu_s() / available;
    out.gpu_util_effective = meter.effective_gpu_s() / available;
    out.gpu_util_busy = meter.busy_gpu_s() / available;
  }
  return out;
}

} // namespace dlsim
