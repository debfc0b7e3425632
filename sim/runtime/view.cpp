#include "sim/runtime/view.h"

#include "sim/cluster/fit.h"
#include "sim/engine/error.h"
#include "sim/runtime/observe_noise.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim {

const SimState& View::raw() const {
  if (!observer_ && !oracle_) {
    throw ActionError(
        "a non-oracle policy asked for the raw state (it holds the jobs' true lengths)");
  }
  return s_;
}

void View::refuse_future(JobId j) const {
  throw ActionError(fmt::format("the policy read job {} ('{}') before its submission at {:g} s "
                                "(now {:g} s): a scheduler learns of a job when it is submitted",
                                j, s_.workload->job_names[j],
                                to_seconds(s_.workload->jobs[j].request.submit),
                                to_seconds(s_.now)));
}

double View::measured_iteration_s(JobId j) const {
  const JobState& job = s_.jobs[j];
  if (job.status != JobStatus::kRunning || !(job.rate > 0)) return 0.0;
  return observe_factor(s_.config.observe_noise, s_.config.failures.seed, j, s_.now,
                        Reading::kIterationTime) /
         job.rate;
}

std::optional<double> View::measured_gpu_util(JobId j) const {
  const JobState& job = s_.jobs[j];
  SimTime measured = s_.profiled_time(j);
  if (job.status == JobStatus::kFuture || to_seconds(measured) < s_.config.profile_s) return {};
  // One profiling per job: its noise is drawn once (at time 0), a reading within [0, 1].
  const double noisy =
      s_.solo_util_of(j) *
      observe_factor(s_.config.observe_noise, s_.config.failures.seed, j, 0, Reading::kGpuUtil);
  return std::clamp(noisy, 0.0, 1.0);
}

SimTime View::profiled_at(JobId j) const {
  const JobState& job = s_.jobs[j];
  if (job.status == JobStatus::kFuture) return kNever;
  const SimTime measured = s_.profiled_time(j);
  if (to_seconds(measured) >= s_.config.profile_s) return s_.now;
  const double weight = s_.profiling_weight(j);
  if (!(weight > 0)) return kNever;
  return wakeup_after(s_.now, (s_.config.profile_s - to_seconds(measured)) / weight);
}

std::span<const DeviceTypeId> View::compatible_types(JobId j) const {
  const JobRequest& req = request(j);
  std::int32_t t = req.device_type;
  if (t == kAnyGpu) return s_.gpu_types_for_model[req.model];
  if (t == kTypeSet)
    return s_.set_types_for_model[req.type_set * s_.gpu_types_for_model.size() + req.model];
  return std::span<const DeviceTypeId>(s_.all_type_ids).subspan(static_cast<std::size_t>(t), 1);
}

std::uint32_t View::workers_fitting_on(JobId j, NodeId n, DeviceTypeId t) const {
  const JobRequest& req = request(j);
  const RequestDetails& rd = details(j);
  const std::uint32_t k = workers_fit(
      is_host_task(req) ? 0 : s_.free.free_on(n, t), s_.node_cpu_free[n], s_.node_mem_free[n],
      {req.devices_per_worker, rd.cpus_per_worker, rd.mem_gb_per_worker});
  return is_host_task(req) ? std::min(k, req.workers) : k;
}

std::optional<std::vector<NodeId>> View::host_fit(JobId j) const {
  const JobRequest& req = request(j);
  if (!is_host_task(req)) return std::nullopt;
  std::vector<NodeId> nodes;
  nodes.reserve(req.workers);
  const auto node_count = static_cast<NodeId>(s_.node_cpu_free.size());
  for (NodeId n = 0; n < node_count && nodes.size() < req.workers; ++n) {
    const std::uint32_t k = std::min<std::uint32_t>(
        workers_fitting_on(j, n, 0), req.workers - static_cast<std::uint32_t>(nodes.size()));
    nodes.insert(nodes.end(), k, n);
  }
  if (nodes.size() < req.workers) return std::nullopt;
  return nodes;
}

ModelId View::current_model(JobId j) const {
  const JobRequest& r = request(j);
  if (s_.workload->phase_plan.empty()) return r.model;
  const Phase* phase = s_.workload->phase_at(j, done_at(s_.jobs[j], s_.now));
  return phase != nullptr ? phase->model : r.model;
}

namespace {

// Seconds on the reference device of job j's iterations from `done` to its end: its phases'
// (each phase's iterations over its work, at its model's time) where it has phases.
double reference_seconds_from(const Workload& w, JobId j, double done) {
  const JobSpec& spec = w.jobs[j];
  const DeviceTypeId ref = w.reference_device;
  if (w.phase_plan.empty() || w.phase_plan[j] == 0)
    return std::max(0.0, spec.iterations - done) * w.perf.iter_time(spec.request.model, ref);
  const std::vector<Phase>& plan = w.phases[w.phase_plan[j] - 1];
  double s = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const double end = i + 1 < plan.size() ? plan[i + 1].from : spec.iterations;
    const double left = end - std::max(done, plan[i].from);
    if (left > 0) s += left / plan[i].work * w.perf.iter_time(plan[i].model, ref);
  }
  return s;
}

} // namespace

double View::oracle_total_s(JobId j) const {
  if (!oracle_) throw ActionError("a non-oracle policy asked for a job's true duration");
  return reference_seconds_from(*s_.workload, j, 0);
}

double View::oracle_remaining_s(JobId j) const {
  if (!oracle_) throw ActionError("a non-oracle policy asked for a job's true remaining time");
  return reference_seconds_from(*s_.workload, j, done_at(s_.jobs[j], s_.now));
}

double View::oracle_seconds_per_iteration(JobId j) const {
  if (!oracle_) throw ActionError("a non-oracle policy asked for a job's true remaining time");
  const Workload& w = *s_.workload;
  if (!w.phase_plan.empty() && w.phase_plan[j] != 0)
    return std::numeric_limits<double>::quiet_NaN();
  return w.perf.iter_time(w.jobs[j].request.model, w.reference_device);
}

const LossCurve* View::curve_of(JobId j) const {
  if (s_.jobs[j].status == JobStatus::kFuture && !observer_) refuse_future(j);
  const std::uint32_t c = s_.workload->jobs[j].curve;
  return c == 0 ? nullptr : &s_.workload->curves[c - 1];
}

bool View::has_loss_curve(JobId j) const {
  return curve_of(j) != nullptr;
}

double View::loss_target(JobId j) const {
  const LossCurve* c = curve_of(j);
  return c ? c->target : 0.0;
}

double View::loss_every(JobId j) const {
  const LossCurve* c = curve_of(j);
  return c ? c->every : 0.0;
}

std::uint64_t View::loss_samples(JobId j) const {
  const LossCurve* c = curve_of(j);
  if (!c) return 0;
  // The last observation is at the job's end at the latest: done may pass the final sample's
  // iteration by rounding only.
  const double done = std::min(done_at(s_.jobs[j], s_.now), s_.workload->jobs[j].iterations);
  return static_cast<std::uint64_t>(std::floor(done / c->every));
}

double View::observed_loss(JobId j, std::uint64_t i) const {
  const std::uint64_t n = loss_samples(j);
  if (i >= n) {
    throw ActionError(
        fmt::format("job {} ('{}'): observed loss {} asked for, only {} observed so far", j,
                    s_.workload->job_names[j], i, n));
  }
  return observed_loss_at(*curve_of(j), i);
}

const LossCurve& View::oracle_loss_curve(JobId j) const {
  if (!oracle_) throw ActionError("a non-oracle policy asked for a job's true loss curve");
  const LossCurve* c = curve_of(j);
  if (!c) {
    throw ActionError(fmt::format("job {} ('{}') has no loss curve", j, s_.workload->job_names[j]));
  }
  return *c;
}

} // namespace dlsim
