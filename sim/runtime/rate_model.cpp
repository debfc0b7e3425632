// The terms of the rate model and their composition (docs/runtime.md#the-rate-model).
#include "sim/runtime/rate_model.h"

#include "sim/network/iteration_time.h"
#include "sim/network/network_model.h"
#include "sim/runtime/measured_scaling.h"
#include "sim/runtime/scaling_model.h"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <stdexcept>

namespace dlsim {

double timeslice_slowdown(unsigned k, double switch_s, double slice_s) {
  double eff = timeslice_efficiency(switch_s, slice_s);
  if (!(eff > 0)) {
    throw std::logic_error(
        fmt::format("time slice of {} s is not longer than the switch of {} s", slice_s, switch_s));
  }
  return k / eff;
}

void water_fill(std::span<const double> lo, std::span<const double> hi, std::span<double> out) {
  const std::size_t n = lo.size();
  double capped = 0;
  for (std::size_t i = 0; i < n; ++i)
    capped += hi[i];
  if (capped <= 1) {
    std::copy(hi.begin(), hi.end(), out.begin());
    return;
  }
  // f(L) = sum_i clamp(L, lo_i, hi_i) is piecewise linear and non-decreasing, with breakpoints at
  // the floors and caps; f(smallest floor) = sum lo <= 1 < sum hi = f(largest cap). Find the
  // segment where f reaches 1 and interpolate in it.
  std::array<double, std::size_t{2} * DeviceSlot::kMaxShare> points{};
  std::size_t m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    points[m++] = lo[i];
    points[m++] = hi[i];
  }
  std::sort(points.begin(), points.begin() + static_cast<std::ptrdiff_t>(m));
  auto f = [&](double level) {
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i)
      sum += std::clamp(level, lo[i], hi[i]);
    return sum;
  };
  double level = points[m - 1];
  double fa = f(points[0]);
  for (std::size_t k = 1; k < m; ++k) {
    double a = points[k - 1];
    double b = points[k];
    double fb = f(b);
    if (fb >= 1) {
      level = fb > fa ? a + (1 - fa) * (b - a) / (fb - fa) : a;
      break;
    }
    fa = fb;
  }
  for (std::size_t i = 0; i < n; ++i)
    out[i] = std::clamp(level, lo[i], hi[i]);
}

namespace {

// The grants of the running holders of `slot` under the controller, counting `also` as running
// and `leaving` as not, whatever their status says (a job's status and its running count change
// at different moments). Returns how many; jobs[i] gets grant[i].
std::size_t device_grants(const SimState& s, const DeviceSlot& slot, JobId also, JobId leaving,
                          std::array<JobId, DeviceSlot::kMaxShare>& jobs,
                          std::array<double, DeviceSlot::kMaxShare>& grant) {
  std::array<double, DeviceSlot::kMaxShare> lo{};
  std::array<double, DeviceSlot::kMaxShare> hi{};
  std::size_t n = 0;
  const double efficiency = share_token_efficiency(s.config.share);
  for (unsigned k = 0; k < slot.count; ++k) {
    const JobId h = slot.jobs[k];
    const JobState& holder = s.jobs[h];
    if (!s.under_controller(h) || h == leaving ||
        (holder.status != JobStatus::kRunning && h != also))
      continue;
    const double u = s.solo_util_of(h);
    jobs[n] = h;
    const double share_min = s.share_min(h);
    lo[n] = share_min;
    hi[n] = std::max(share_min, std::min(s.share_max(h), u / efficiency));
    ++n;
  }
  water_fill(std::span<const double>(lo.data(), n), std::span<const double>(hi.data(), n),
             std::span<double>(grant.data(), n));
  return n;
}

} // namespace

double share_grant(const SimState& s, const DeviceSlot& slot, JobId j) {
  std::array<JobId, DeviceSlot::kMaxShare> jobs{};
  std::array<double, DeviceSlot::kMaxShare> grant{};
  const std::size_t n = device_grants(s, slot, j, kNoJob, jobs, grant);
  for (std::size_t i = 0; i < n; ++i) {
    if (jobs[i] == j) return grant[i];
  }
  return 0.0;
}

double share_effective(const SimState& s, const DeviceSlot& slot, JobId leaving) {
  std::array<JobId, DeviceSlot::kMaxShare> jobs{};
  std::array<double, DeviceSlot::kMaxShare> grant{};
  const std::size_t n = device_grants(s, slot, kNoJob, leaving, jobs, grant);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double u = s.solo_util_of(jobs[i]);
    sum += s.config.share.model == "ideal" ? std::min(u, grant[i])
                                           : u * controller_speed(s.config.share, grant[i], u);
  }
  return sum;
}

double device_slowdown(const DeviceSlot& slot, const RuntimeConfig& config, DeviceTypeId type) {
  if (slot.running < 2) return 1.0;
  if (slot.sliced > 0) return timeslice_slowdown(slot.running, config.costs.switch_s, slot.slice_s);
  return interference_slowdown(interference_of(config, type), slot.running_util);
}

double device_effective(const DeviceSlot& slot, const RuntimeConfig& config, DeviceTypeId type) {
  if (slot.running == 0) return 0.0;
  // Useful work only: each packed job keeps the device busy its solo utilization's worth, at
  // 1/slowdown of its solo speed, so interference lowers the figure (1 when the slowdown is 1).
  if (slot.sliced == 0) {
    double slowdown = slot.running < 2
                          ? 1.0
                          : interference_slowdown(interference_of(config, type), slot.running_util);
    return std::min(1.0, slot.running_util / slowdown);
  }
  double mean = slot.running_util / slot.running;
  return slot.running >= 2 ? mean * timeslice_efficiency(config.costs.switch_s, slot.slice_s)
                           : mean;
}

namespace {

// The two running jobs of a packed pair on a device (none but them running), skipping
// `leaving`, which is stopping; false when the device runs anything else.
bool running_pair(const SimState& s, const DeviceSlot& slot, JobId leaving, JobId (&pair)[2]) {
  if (slot.sliced > 0) return false;
  unsigned n = 0;
  for (unsigned i = 0; i < slot.count; ++i) {
    JobId j = slot.jobs[i];
    if (j == leaving || s.jobs[j].status != JobStatus::kRunning) continue;
    if (n == 2) return false;
    pair[n++] = j;
  }
  return n == 2;
}

// The measured factor of j packed with `other` on a device of `type`, else the type's curve at
// the pair's summed utilization.
double pair_slowdown(const SimState& s, DeviceTypeId type, JobId j, JobId other) {
  const auto& jobs = s.workload->jobs;
  double measured =
      s.config.interference_pairs.at(type, jobs[j].request.model, jobs[other].request.model);
  if (measured > 0) return measured;
  return interference_slowdown(interference_of(s.config, type),
                               s.solo_util_of(j) + s.solo_util_of(other));
}

// The complete table's slowdown of running job j on a packed device: 1 + the sum over the other
// running jobs (but `leaving`) of (pair factor - 1). With one partner it is the pair's factor;
// with more, each partner takes the share of j's time it takes in the pair (docs/runtime.md).
double table_slowdown(const SimState& s, const DeviceSlot& slot, DeviceTypeId type, JobId j,
                      JobId leaving) {
  const auto& jobs = s.workload->jobs;
  const ModelId mine = jobs[j].request.model;
  double slowdown = 1.0;
  for (unsigned i = 0; i < slot.count; ++i) {
    JobId k = slot.jobs[i];
    if (k == j || k == leaving || s.jobs[k].status != JobStatus::kRunning) continue;
    slowdown += s.config.interference_pairs.at(type, mine, jobs[k].request.model) - 1.0;
  }
  return slowdown;
}

} // namespace

double job_slowdown_on(const SimState& s, DeviceId d, JobId j) {
  const DeviceSlot& slot = s.slots[d];
  if (slot.running < 2) return 1.0;
  DeviceTypeId type = s.cluster->devices[d].type;
  if (s.config.interference_pairs.complete && slot.sliced == 0) {
    return table_slowdown(s, slot, type, j, kNoJob);
  }
  JobId pair[2];
  if (slot.running == 2 && !s.config.interference_pairs.empty() &&
      running_pair(s, slot, kNoJob, pair) && (pair[0] == j || pair[1] == j)) {
    return pair_slowdown(s, type, j, pair[0] == j ? pair[1] : pair[0]);
  }
  return device_slowdown(slot, s.config, type);
}

double device_effective_on(const SimState& s, DeviceId d, JobId leaving) {
  const DeviceSlot& slot = s.slots[d];
  DeviceTypeId type = s.cluster->devices[d].type;
  if (s.config.interference_pairs.complete && slot.sliced == 0) {
    // Useful work: each running job's solo utilization at its speed, sum(u_j / slowdown_j).
    double work = 0;
    for (unsigned i = 0; i < slot.count; ++i) {
      JobId k = slot.jobs[i];
      if (k == leaving || s.jobs[k].status != JobStatus::kRunning) continue;
      work += s.solo_util_of(k) / table_slowdown(s, slot, type, k, leaving);
    }
    return std::min(1.0, work);
  }
  JobId pair[2];
  if (slot.running == 2 && !s.config.interference_pairs.empty() &&
      running_pair(s, slot, leaving, pair)) {
    double work = s.solo_util_of(pair[0]) / pair_slowdown(s, type, pair[0], pair[1]) +
                  s.solo_util_of(pair[1]) / pair_slowdown(s, type, pair[1], pair[0]);
    return std::min(1.0, work);
  }
  return device_effective(slot, s.config, type);
}

double job_rate(const SimState& s, JobId j, const NetworkModel* net) {
  // A job whose speed changes with its progress runs its phase's model, each iteration of which
  // does `work` of the job's iterations.
  const Phase* phase =
      s.workload->phase_plan.empty() ? nullptr : s.workload->phase_at(j, done_at(s.jobs[j], s.now));
  if (phase != nullptr) {
    JobRequest req = s.workload->jobs[j].request;
    req.model = phase->model;
    return phase->work * job_rate_as(s, j, req, net);
  }
  return job_rate_as(s, j, s.workload->jobs[j].request, net);
}

double job_rate_as(const SimState& s, JobId j, const JobRequest& req, const NetworkModel* net) {
  const JobState& job = s.jobs[j];
  const PerfTable& perf = s.workload->perf;
  // A host task shares no device: its model's time on the reference device, where a run time
  // given as a duration was measured (docs/runtime.md#host-tasks).
  if (is_host_task(req)) return 1.0 / perf.iter_time(req.model, s.workload->reference_device);
  double iter_s = scaled_iter_s(device_iter_s(perf, req.model, job.type), req.workers, job.workers);
  // A gang runs at the pace of its slowest device.
  double slowdown = 1.0;
  if (s.under_controller(j)) {
    // Isolated by its grant on each device (controlled sharing): its tenants take turns, so no
    // interference term, but the controller's cost (controller_speed).
    for (DeviceId d : job.devices) {
      slowdown =
          std::max(slowdown, 1.0 / controller_speed(s.config.share, share_grant(s, s.slots[d], j),
                                                    s.solo_util_of(j)));
    }
  } else {
    for (DeviceId d : job.devices) {
      slowdown = std::max(slowdown, job_slowdown_on(s, d, j));
    }
  }
  if (net != nullptr) {
    // Compute, plus the communication not hidden behind the backward pass (docs/network.md).
    CommTimes comm = net->times(j);
    double overlap = perf.traffic[req.model].comm_overlap;
    return 1.0 / iteration_seconds(iter_s * slowdown, comm.comm_s, overlap, comm.input_s);
  }
  if (s.analytic_scaling && req.model < perf.traffic.size() &&
      perf.traffic[req.model].model_bytes > 0) {
    // Each of the allocated workers computes one step of the request's per-worker batch, then
    // exchanges gradients (docs/scaling.md): alloc / req of the request's work per step.
    const PerfTable::Traffic& t = perf.traffic[req.model];
    // A ring job whose model was measured on this device type scales as measured
    // (docs/scaling.md#measured-scaling-in-the-runtime).
    const MeasuredScalingTable* table = s.config.measured_scaling_table.get();
    const MeasuredScaling* measured =
        table != nullptr && s.ps(j) == 0 ? table->find(req.model) : nullptr;
    if (measured != nullptr && measured->type == job.type) {
      const double ratio = measured_step_ratio(*measured, replicas_per_node(*s.cluster, job));
      if (ratio > 0) {
        const double step_s = device_iter_s(perf, req.model, job.type) * slowdown * ratio;
        return static_cast<double>(job.workers) / (static_cast<double>(req.workers) * step_s);
      }
    }
    ScalingPlacement place = scaling_placement(*s.cluster, job, s.ps(j));
    // The CPU side of a PS exchange (0: not modelled): the request's cores, or set_cpus'.
    place.ps_cores = s.ps_cores(j);
    place.worker_cores = s.worker_cores(j);
    place.devices_per_worker = req.devices_per_worker;
    const double step_s = analytic_step_s(device_iter_s(perf, req.model, job.type) * slowdown,
                                          t.model_bytes, t.comm_overlap, place);
    return static_cast<double>(job.workers) / (static_cast<double>(req.workers) * step_s);
  }
  return 1.0 / (iter_s * slowdown);
}

namespace {

// The slowdown of running job j on a packed device whose running jobs, but `leaving`, number n:
// job_slowdown_on's rules for that set (slot.running_util already leaves `leaving` out when
// the Simulation asks, as it does for device_effective).
double slowdown_among(const SimState& s, const DeviceSlot& slot, DeviceTypeId type, JobId j,
                      JobId leaving, unsigned n) {
  if (n < 2) return 1.0;
  if (s.config.interference_pairs.complete) return table_slowdown(s, slot, type, j, leaving);
  JobId pair[2];
  if (n == 2 && !s.config.interference_pairs.empty() && running_pair(s, slot, leaving, pair)) {
    return pair_slowdown(s, type, j, pair[0] == j ? pair[1] : pair[0]);
  }
  return interference_slowdown(interference_of(s.config, type), slot.running_util);
}

} // namespace

double device_kernel_busy_on(const SimState& s, DeviceId d, JobId leaving) {
  const DeviceSlot& slot = s.slots[d];
  DeviceTypeId type = s.cluster->devices[d].type;
  if (slot.controlled > 0) return share_effective(s, slot, leaving);
  if (slot.sliced > 0) return device_effective(slot, s.config, type);
  std::array<JobId, DeviceSlot::kMaxShare> running{};
  unsigned n = 0;
  for (unsigned i = 0; i < slot.count; ++i) {
    JobId k = slot.jobs[i];
    if (k != leaving && s.jobs[k].status == JobStatus::kRunning) running[n++] = k;
  }
  double idle = 1.0;
  for (unsigned i = 0; i < n; ++i) {
    const double u = std::clamp(s.solo_util_of(running[i]), 0.0, 1.0);
    idle *= (1.0 - u) / slowdown_among(s, slot, type, running[i], leaving, n);
  }
  return n == 0 ? 0.0 : std::clamp(1.0 - idle, 0.0, 1.0);
}

} // namespace dlsim
