// The event loop: events applied in order, the policy called once per timestamp, progress
// settled at every rate change, finish events projected. What jobs hold is the ledger's
// (ledger.h), what may be placed admission's (admission.h), rates the rate model's
// (rate_model.h).
#include "sim/runtime/simulation.h"

#include "sim/engine/error.h"
#include "sim/runtime/gpu_types.h"
#include "sim/runtime/ps_placement.h"
#include "sim/runtime/rate_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace dlsim {

Simulation::Simulation(const Cluster& cluster, const Workload& workload,
                       const RuntimeConfig& config, Policy& policy, PolicyInfo info)
    : policy_(policy), info_(std::move(info)) {
  s_.cluster = &cluster;
  s_.workload = &workload;
  s_.config = config;
  s_.config.max_jobs_per_device =
      std::clamp<unsigned>(config.max_jobs_per_device, 1, DeviceSlot::kMaxShare);
  s_.config.max_timeslice_jobs =
      std::clamp<unsigned>(config.max_timeslice_jobs, 1, DeviceSlot::kMaxShare);
  s_.jobs.resize(workload.jobs.size());
  s_.lists.resize(workload.jobs.size());
  s_.slots.resize(cluster.devices.size());
  s_.free.init(cluster);
  s_.changes.nodes.init(cluster.nodes.size());
  s_.changes.jobs.init(workload.jobs.size());
  for (const Node& n : cluster.nodes) {
    s_.node_cpu_free.push_back(n.cpu_cores);
    s_.node_mem_free.push_back(n.memory_gb);
  }
  s_.gpu_count = cluster.count_of_kind(DeviceKind::kGpu);
  s_.devices_of_type.assign(cluster.types.size(), 0);
  s_.busy_by_type.assign(cluster.types.size(), 0);
  s_.effective_by_type.assign(cluster.types.size(), 0.0);
  for (const Device& d : cluster.devices)
    ++s_.devices_of_type[d.type];
  for (std::size_t i = 0; i < cluster.types.size(); ++i) {
    const auto t = static_cast<DeviceTypeId>(i); // exact: cluster_yaml.cpp bounds the types
    s_.all_type_ids.push_back(t);
    if (cluster.types[t].kind == DeviceKind::kGpu && cluster.count_of_type(t) > 0) {
      s_.gpu_types_present.push_back(t);
    }
  }
  // One pass over the jobs for the queues in use and each model's memory: at a million jobs a
  // pass was 7-10 ms of reading, and gpu_types_by_model made one per call (one per type set).
  std::vector<double> model_mem_gb(std::max<std::size_t>(1, workload.models.size()), 0.0);
  s_.queue_used.assign(workload.queues.size(), false);
  for (const JobSpec& spec : workload.jobs) {
    const JobRequest& req = spec.request;
    if (req.queue >= s_.queue_used.size()) s_.queue_used.resize(req.queue + 1, false);
    s_.queue_used[req.queue] = true;
    note_model_memory(model_mem_gb, workload, req);
  }
  s_.gpu_types_for_model =
      gpu_types_by_model(cluster, workload, s_.gpu_types_present, model_mem_gb);
  for (const auto& set : workload.type_sets) {
    std::vector<DeviceTypeId> present;
    for (DeviceTypeId t : set) {
      if (s_.devices_of_type[t] > 0) present.push_back(t);
    }
    for (auto& types : gpu_types_by_model(cluster, workload, present, model_mem_gb))
      s_.set_types_for_model.push_back(std::move(types));
  }
  net_ = std::make_unique<NetworkModel>(cluster);
  s_.network = net_.get();
  contention_ = config.network.contention;
  s_.analytic_scaling = config.scaling == "analytic";
  policy_.check_config(s_.config);
  policy_.check_cluster(*s_.cluster);
  if (config.failures.enabled || config.failures.checkpoint_interval_s > 0 ||
      workload.any_checkpoint_interval())
    init_failures();
}

namespace {

// The queue's next event is nearly always a job's finish, and the first thing done with it is
// reading that job's state (is_stale, then finish_job) and spec. Finish times bear no relation
// to job ids, so with a million jobs those records are not in the cache: one miss per finish,
// which was most of next_event_time's time (80% of its samples on that one load). Asking for
// them as soon as the event reaches the top lets the fetch overlap with the policy's decision.
// Inlined always: GCC 12 finds a function of prefetches alone free of side effects and drops
// the call (the prefetches vanished from the binary).
[[gnu::always_inline]] inline void prefetch_job(const SimState& s, std::uint32_t j) {
  constexpr std::size_t kCacheLine = 64;
  if (j >= s.jobs.size()) return; // a wake-up's subject, 0, is a job too; stay in bounds anyway
  const auto* state = reinterpret_cast<const char*>(&s.jobs[j]);
  for (std::size_t at = 0; at < sizeof(JobState); at += kCacheLine)
    __builtin_prefetch(state + at);
  const auto* spec = reinterpret_cast<const char*>(&s.workload->jobs[j]);
  for (std::size_t at = 0; at < sizeof(JobSpec); at += kCacheLine)
    __builtin_prefetch(spec + at);
}

// The share of its running time that time-sliced job j computes: 1 / the time-slicing slowdown
// of its most shared device (k jobs taking turns: (1 - switch_s / slice_s) / k); 1 alone. The
// rest it waits for the other jobs' turns and the switches (docs/outputs.md#queueing-delay).
double turn_share(const SimState& s, JobId j) {
  double slowdown = 1.0;
  for (DeviceId d : s.jobs[j].devices) {
    const DeviceSlot& slot = s.slots[d];
    // Every device of a time-sliced job is time-sliced (check_place refuses a mix).
    if (slot.sliced > 0)
      slowdown = std::max(slowdown, device_slowdown(slot, s.config, s.cluster->devices[d].type));
  }
  return 1.0 / slowdown;
}

} // namespace

bool Simulation::is_stale(const Event& e) const {
  const JobState& job = s_.jobs[e.subject];
  switch (e.kind) {
  case EventKind::kJobFinish:
    return e.generation != job.generation || job.status != JobStatus::kRunning;
  case EventKind::kActionDone:
    return e.generation != job.generation;
  default:
    return false;
  }
}

// Drops cancelled events from the top of the queue, so they neither advance the clock nor
// wake the policy.
void Simulation::drop_stale() {
  while (!queue_.empty() && is_stale(queue_.top()))
    queue_.pop();
}

bool Simulation::next_event_time(SimTime& t) {
  drop_stale();
  bool any = false;
  if (!queue_.empty()) {
    t = queue_.top_time();
    any = true;
    // The top's state is read by now (drop_stale): ask for its device list too, which its
    // finish walks (set_running, release) after the policy's decision that usually comes first.
    if (const std::uint32_t j = queue_.top().subject; j < s_.jobs.size()) {
      const DeviceList& devices = s_.jobs[j].devices;
      if (!devices.empty()) __builtin_prefetch(devices.data());
    }
  }
  if (next_arrival_ < s_.workload->jobs.size()) {
    SimTime a = s_.workload->jobs[next_arrival_].request.submit;
    if (!any || a < t) t = a;
    any = true;
  }
  if (!fail_queue_.empty()) return next_failure_time(t, any);
  return any;
}

// Arrivals are not stored in the queue: jobs are sorted by submit time, so the next one is
// merged in here by (time, band). This keeps the heap small for million-job traces.
Event Simulation::pop_next() {
  if (!fail_queue_.empty() && failure_event_first()) {
    Event e = fail_queue_.pop();
    // The next timer's job is read at every event until the timer fires (next_failure_time
    // checks that it still holds): fetch its records now, as for the main queue's top.
    if (!fail_queue_.empty() && fail_queue_.top_kind() == EventKind::kCheckpoint) {
      const std::uint32_t j = fail_queue_.top().subject;
      prefetch_job(s_, j);
      __builtin_prefetch(&s_.failures.jobs[j]);
    }
    return e;
  }
  bool have_arrival = next_arrival_ < s_.workload->jobs.size();
  if (have_arrival) {
    SimTime a = s_.workload->jobs[next_arrival_].request.submit;
    bool before_queue = queue_.empty() || a < queue_.top_time() ||
                        (a == queue_.top_time() && EventKind::kArrival < queue_.top_kind());
    if (before_queue) {
      Event e{a, EventKind::kArrival, static_cast<std::uint32_t>(next_arrival_), 0, 1};
      ++next_arrival_;
      return e;
    }
  }
  Event e = queue_.pop();
  if (!queue_.empty()) prefetch_job(s_, queue_.top().subject);
  return e;
}

RunResult Simulation::run(SimTime until) {
  RunResult result;
  const View view(s_, info_.oracle, /*observer=*/true);
  SimTime t = 0;
  while (next_event_time(t)) {
    if (t > until) {
      for (auto* o : observers_)
        o->on_advance(s_.now, until, view);
      s_.now = until;
      result.hit_until = true;
      break;
    }
    if (t > s_.now) {
      for (auto* o : observers_)
        o->on_advance(s_.now, t, view);
      s_.now = t;
    }
    // next_event_time(t) has just found an event at t (on_advance changes no state): apply it
    // before asking again, so an instant of one event asks twice, not three times.
    SimTime next = t;
    do
      apply(pop_next());
    while (next_event_time(next) && next == t);
    Control control(*this, s_, info_.oracle);
    policy_.schedule(control);
    for (auto* o : observers_)
      o->on_decided(view);
  }
  // Bring running jobs up to date, so a run stopped by --until reports their progress so far.
  // From the runtime's list of placed jobs, not a walk over every job's record (88 MB at a
  // million jobs); each job settles alone, so their order does not matter.
  for (JobId j : s_.lists.range(JobList::kRunning)) {
    if (s_.jobs[j].status == JobStatus::kRunning) settle(j);
  }
  if (!result.hit_until) check_all_could_finish();
  if (s_.failures.on) note_down_change();
  for (auto* o : observers_)
    o->on_run_end(view);
  result.end = s_.now;
  result.events = s_.events;
  result.turn_waits = over_waits_;
  for (const auto& [j, t] : turns_)
    result.turn_waits.emplace(j, static_cast<SimTime>(std::llround(t.waited_us)));
  result.unfinished = static_cast<std::uint32_t>(s_.jobs.size()) - s_.finished - s_.cancelled;
  return result;
}

void Simulation::release_bookkeeping() {
  s_.lists.release();
  s_.changes.jobs.release();
  s_.changes.nodes.release();
  std::vector<std::uint64_t>().swap(refresh_stamp_);
}

// A job still running when no event is left had its finish projected beyond the time limit
// (reschedule): report it rather than end the run as if it were merely unfinished.
// The placed jobs are in the runtime's list (in placement order): the lowest such id is reported,
// as a walk over every job's record found first.
void Simulation::check_all_could_finish() const {
  JobId first = kNoJob;
  for (JobId j : s_.lists.range(JobList::kRunning)) {
    const JobState& job = s_.jobs[j];
    if (job.status == JobStatus::kRunning && job.rate > 0) first = std::min(first, j);
  }
  if (first == kNoJob) return;
  const JobState& job = s_.jobs[first];
  double left = s_.workload->jobs[first].iterations - job.done;
  throw InputError(
      fmt::format("job '{}': at {:.6g} iterations/s its remaining {:.6g} iterations need {:.6g} s, "
                  "beyond dlsim's time limit of {} s; a rate this low comes from the configuration "
                  "(network bandwidths such as nic_gbit_s, interference, time-slice costs)",
                  s_.workload->job_names[first], job.rate, left, left / job.rate, kMaxSeconds));
}

void Simulation::apply(const Event& e) {
  if (e.kind >= EventKind::kFailure) {
    apply_failure_event(e);
    return;
  }
  JobState& job = s_.jobs[e.subject];
  const View view(s_, info_.oracle);
  const View observer_view(s_, info_.oracle, /*observer=*/true);
  if (is_stale(e)) return;
  switch (e.kind) {
  case EventKind::kJobFinish:
    ++s_.events;
    if (!s_.workload->phase_plan.empty() && s_.workload->phase_plan[e.subject] != 0 &&
        done_at(job, s_.now) < s_.workload->jobs[e.subject].iterations -
                                   1e-9 * std::max(1.0, s_.workload->jobs[e.subject].iterations) -
                                   job.rate * 1e-8) {
      // Not the end: the start of the job's next phase, where its speed changes.
      next_phase(e.subject);
      return;
    }
    finish_job(e.subject);
    policy_.on_finish(e.subject, view);
    for (auto* o : observers_)
      o->on_job_finished(e.subject, observer_view);
    return;
  case EventKind::kActionDone:
    ++s_.events;
    action_done(e.subject);
    policy_.on_action_done(e.subject, view);
    return;
  case EventKind::kArrival:
    ++s_.events;
    set_status(e.subject, JobStatus::kPending);
    job.last_update = s_.now;
    ++s_.pending;
    emit(e.subject, JobAction::kSubmit, {});
    policy_.on_arrival(e.subject, view);
    return;
  case EventKind::kWakeup:
    s_.events += e.count; // the wake-ups asked for at this instant, each one event
    return;
  case EventKind::kFailure:
  case EventKind::kRepair:
  case EventKind::kCheckpoint:
    return; // applied above
  }
}

void Simulation::next_phase(JobId j) {
  JobState& job = s_.jobs[j];
  settle(j);
  // The event was projected to the microsecond (rounded up, less 1 ns of slack): a job short of
  // its next phase's start by less than a microsecond of progress is put there, so that the new
  // phase is the one its rate is taken from and the next event is not projected to now again.
  const double start = s_.workload->next_phase_from(j, job.done);
  if (start < s_.workload->jobs[j].iterations && start - job.done <= job.rate * 1e-6)
    job.done = start;
  job.rate = job_rate(s_, j, contention_ && net_->has_job(j) ? net_.get() : nullptr);
  s_.changes.jobs.mark(j);
  reschedule(j);
}

void Simulation::finish_job(JobId j) {
  JobState& job = s_.jobs[j];
  settle(j);
  job.done = s_.workload->jobs[j].iterations; // exact, whatever rounding the rate carried
  set_running(j, false);
  set_status(j, JobStatus::kFinished);
  job.rate = 0;
  job.end = s_.now;
  cancel_finish(j);
  ++s_.finished;
  emit(j, JobAction::kFinish, job.devices);
  release(j);
  if (job.sliced) retire_turns(j);
}

void Simulation::retire_turns(JobId j) {
  auto it = turns_.find(j);
  if (it == turns_.end()) return;
  if (const auto waited = static_cast<SimTime>(std::llround(it->second.waited_us)); waited != 0)
    over_waits_.emplace(j, waited);
  turns_.erase(it);
}

void Simulation::action_done(JobId j) {
  JobState& job = s_.jobs[j];
  switch (job.status) {
  case JobStatus::kStarting:
  case JobStatus::kMigrating:
  case JobStatus::kResizing: {
    const JobStatus was = job.status;
    set_status(j, JobStatus::kRunning);
    job.last_update = s_.now;
    set_running(j, true);
    refresh_job(j);
    emit(j, JobAction::kRunning, job.devices);
    if (s_.failures.any()) after_paid(j, was);
    return;
  }
  case JobStatus::kSuspending:
    set_status(j, JobStatus::kSuspended);
    ++s_.pending;
    emit(j, JobAction::kSuspended, job.devices);
    if (s_.failures.any()) after_paid(j, JobStatus::kSuspending);
    release(j);
    return;
  default:
    return;
  }
}

void Simulation::emit_to_observers(JobId j, JobAction action, std::span<const DeviceId> devices,
                                   std::string_view reason) {
  const View view(s_, info_.oracle, /*observer=*/true);
  const JobEvent event{s_.now, j, action, devices, reason};
  for (auto* o : event_observers_)
    o->on_job_event(event, view);
}

void Simulation::wake_at(SimTime t) {
  // A wake-up beyond the time limit never comes (policies compute them as now + a parameter).
  if (t > s_.now && t <= kMaxTime) queue_.push_wakeup(t);
}

// ---- occupancy -------------------------------------------------------------------------

void Simulation::release(JobId j) {
  DeviceList old = ledger::release(s_, j);
  refresh_rates(old);
}

void Simulation::update_alone(JobId j, bool running) {
  JobState& job = s_.jobs[j];
  const bool crowded =
      running && !std::all_of(job.devices.begin(), job.devices.end(),
                              [&](DeviceId d) { return s_.slots[d].running == 1; });
  if (!crowded && !job.crowded) return; // alone, or not running, and never crowded: no entry
  JobExtras::Crowded& c = s_.extras[j].crowded;
  job.crowded = true;
  // A profiler's share of the spell (SimState::profiled_time): the least, over the job's
  // devices, of 1 where it runs alone and (1 - switch_s / slice_s) / k where k jobs take turns;
  // 0 where jobs run at once.
  double weight = 0;
  if (crowded) {
    weight = 1;
    for (DeviceId d : job.devices) {
      const DeviceSlot& slot = s_.slots[d];
      if (slot.running == 1) continue;
      weight = slot.sliced == 0
                   ? 0.0
                   : std::min(weight, timeslice_efficiency(s_.config.costs.switch_s, slot.slice_s) /
                                          slot.running);
      if (weight == 0) break;
    }
  }
  if (crowded == (c.since >= 0) && (!crowded || weight == c.weight)) return;
  if (c.since >= 0) { // the current spell ends (here, or to start one at another weight)
    c.time += s_.now - c.since;
    c.profiled += SimState::sliced_credit(s_.now - c.since, c.weight);
    c.since = -1;
  }
  if (crowded) {
    c.since = s_.now;
    c.weight = weight;
  }
}

void Simulation::set_running(JobId j, bool running) {
  JobState& job = s_.jobs[j];
  double util = s_.solo_util_of(j);
  for (DeviceId d : job.devices) {
    DeviceSlot& slot = s_.slots[d];
    if (running) {
      ++slot.running;
      slot.running_util += util;
    } else {
      --slot.running;
      slot.running_util = slot.running == 0 ? 0.0 : slot.running_util - util;
    }
    refresh_effective(d, running ? kNoJob : j);
  }
  // Who runs alone changes for this job and for every other holder of its devices.
  update_alone(j, running);
  for (DeviceId d : job.devices) {
    const DeviceSlot& slot = s_.slots[d];
    for (unsigned i = 0; i < slot.count; ++i) {
      JobId k = slot.jobs[i];
      if (k != j) update_alone(k, s_.jobs[k].status == JobStatus::kRunning);
    }
  }
  if (running)
    ++s_.running;
  else
    --s_.running;
  // A running job holds its flows; every caller refreshes rates next, which re-solves them.
  if (contention_) {
    if (running)
      start_traffic(j);
    else
      net_->remove_job(j);
  }
}

// The device's share of effective_gpus and effective_by_type, after its running jobs or their
// shares changed.
void Simulation::refresh_effective(DeviceId d, JobId leaving) {
  DeviceSlot& slot = s_.slots[d];
  double contribution = slot.controlled > 0 ? share_effective(s_, slot, leaving)
                                            : device_effective_on(s_, d, leaving);
  DeviceTypeId type = s_.cluster->devices[d].type;
  s_.effective_by_type[type] += contribution - slot.effective;
  if (s_.cluster->types[type].kind == DeviceKind::kGpu) {
    s_.effective_gpus += contribution - slot.effective;
    // What nvidia-smi would show: the same as the useful work but for packed jobs (a job alone,
    // time slices and shares run one job's kernels at a time), so only those pay the product.
    const double busy = slot.running < 2 || slot.controlled > 0 || slot.sliced > 0
                            ? contribution
                            : device_kernel_busy_on(s_, d, leaving);
    s_.kernel_busy_gpus += busy - slot.kernel_busy;
    slot.kernel_busy = busy;
  }
  slot.effective = contribution;
}

// Only jobs with a model have flows: gradient exchange on two devices or more, input loading
// on every device when the model has input bytes (docs/network.md).
void Simulation::start_traffic(JobId j) {
  const JobState& job = s_.jobs[j];
  const JobRequest& req = s_.workload->jobs[j].request;
  const PerfTable& perf = s_.workload->perf;
  if (req.model == 0 || req.model >= perf.traffic.size() || is_host_task(req)) return;
  const PerfTable::Traffic& model = perf.traffic[req.model];
  if (!(model.model_bytes > 0)) return;
  JobTrafficRequest r;
  r.pattern = TrafficRequest{job.devices, req.devices_per_worker, s_.ps(j), false};
  r.model_bytes = model.model_bytes;
  r.input_bytes = model.input_bytes;
  r.compute_s = perf.iter_time(req.model, job.type) * req.workers / job.workers;
  net_->add_job(j, r);
}

// ---- progress ----------------------------------------------------------------------------

void Simulation::settle(JobId j) {
  JobState& job = s_.jobs[j];
  if (job.status == JobStatus::kRunning && s_.now > job.last_update) {
    SimTime dt = s_.now - job.last_update;
    double dt_s = to_seconds(dt);
    job.done += job.rate * dt_s;
    job.run_time += dt;
    job.attained += static_cast<double>(job.devices.size()) * dt_s;
    // A time-sliced job waits for the other jobs' turns (1 - share) of its running time.
    if (job.sliced) {
      Turns& t = turns_[j];
      t.waited_us += static_cast<double>(dt) * (1 - t.share);
    }
  }
  job.last_update = s_.now;
}

// When the running job j finishes at its rate from now (or, with phases, reaches its next
// phase, where its speed changes), or kNever: not running, or beyond the time limit.
SimTime Simulation::projected_finish(JobId j) const {
  const JobState& job = s_.jobs[j];
  if (job.status != JobStatus::kRunning || job.rate <= 0) return kNever;
  double remaining = (s_.workload->phase_plan.empty() ? s_.workload->jobs[j].iterations
                                                      : s_.workload->next_phase_from(j, job.done)) -
                     job.done;
  // Round up to the microsecond, less 1 ns of floating-point slack: a job given as 782 s of
  // work must finish at 782 s, not 782.000001 s because iterations x seconds/iteration came to
  // 782.0000000001.
  // A finish beyond the time limit (a rate near zero) is not scheduled: the job stays running
  // until its rate changes, and run() reports it if it never does (docs/runtime.md).
  double us = remaining / job.rate * kMicrosPerSecond;
  if (remaining > 0 && !(us - 1e-3 <= static_cast<double>(kMaxTime - s_.now))) return kNever;
  return remaining <= 0 ? s_.now : s_.now + static_cast<SimTime>(std::ceil(us - 1e-3));
}

void Simulation::reschedule(JobId j) {
  JobState& job = s_.jobs[j];
  ++job.generation;
  const SimTime at = projected_finish(j);
  if (s_.failures.checkpoints) note_finish(j, at);
  if (at == kNever) return;
  queue_.push(at, EventKind::kJobFinish, j, job.generation);
  // Each reschedule cancels the job's previous finish; where rates change often (packing) the
  // cancelled ones would fill the heap. A generation never comes back (it only grows), so an
  // event of an older one is dropped whenever popped (is_stale): sweeping it out early changes
  // nothing but the heap's size.
  if (queue_.wants_sweep()) {
    queue_.sweep([this](const Event& e) {
      return (e.kind == EventKind::kJobFinish || e.kind == EventKind::kActionDone) &&
             e.generation != s_.jobs[e.subject].generation;
    });
  }
}

void Simulation::refresh_job(JobId j) {
  if (!is_host_task(s_.workload->jobs[j].request)) {
    refresh_rates(s_.jobs[j].devices);
    return;
  }
  JobState& job = s_.jobs[j];
  if (job.status != JobStatus::kRunning) return;
  settle(j);
  job.rate = job_rate(s_, j, nullptr);
  reschedule(j);
}

void Simulation::refresh_rates(std::span<const DeviceId> devices) {
  ++stamp_;
  scratch_jobs_.clear();
  // Each running job once, in the order met: found by a scan of the few met so far, or, once a
  // refresh met more than that (a large job on shared devices, a network re-solve), by a stamp
  // per job, made then. A stamp per job from the start was 8 bytes a job for runs that never
  // need it (docs/performance.md#what-the-loop-holds-per-job).
  constexpr std::size_t kScanned = 32;
  auto add = [&](JobId j) {
    if (s_.jobs[j].status != JobStatus::kRunning) return;
    if (refresh_stamp_.empty()) {
      if (std::find(scratch_jobs_.begin(), scratch_jobs_.end(), j) != scratch_jobs_.end()) return;
      if (scratch_jobs_.size() == kScanned) {
        refresh_stamp_.assign(s_.jobs.size(), 0);
        for (JobId k : scratch_jobs_)
          refresh_stamp_[k] = stamp_;
        refresh_stamp_[j] = stamp_;
      }
    } else {
      if (refresh_stamp_[j] == stamp_) return;
      refresh_stamp_[j] = stamp_;
    }
    scratch_jobs_.push_back(j);
  };
  for (DeviceId d : devices) {
    const DeviceSlot& slot = s_.slots[d];
    for (std::uint8_t k = 0; k < slot.count; ++k)
      add(slot.jobs[k]);
  }
  // Flows added or removed since the last refresh: re-solve their components, and refresh the
  // jobs whose bandwidth changed wherever they run.
  if (contention_ && net_->dirty()) {
    net_changed_.clear();
    net_->update(net_changed_);
    for (JobId j : net_changed_)
      add(j);
  }
  // Copy: reschedule() does not touch scratch_jobs_, but keep the loop independent of it.
  std::vector<JobId> affected;
  affected.swap(scratch_jobs_);
  for (JobId j : affected) {
    JobState& job = s_.jobs[j];
    double rate = job_rate(s_, j, contention_ && net_->has_job(j) ? net_.get() : nullptr);
    // A time-sliced job's share of turns is set with its rate, for settle to count its waits
    // (the time up to now at the share before).
    if (job.sliced) {
      const double share = turn_share(s_, j);
      Turns& turns = turns_[j]; // settle finds the same entry: the reference stays valid
      if (turns.share != share) {
        settle(j);
        turns.share = share;
      }
    }
    if (rate == job.rate) continue; // unchanged: its finish event still holds
    settle(j);
    job.rate = rate;
    s_.changes.jobs.mark(j);
    reschedule(j);
  }
  affected.clear();
  scratch_jobs_.swap(affected);
}

} // namespace dlsim
