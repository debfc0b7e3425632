// Failures, repairs and periodic checkpoints (docs/failures.md): components go down and come
// back by seeded processes or a failure log, the jobs on a failed component lose their work
// since their last checkpoint and are pending again, and running jobs pause to checkpoint.
#include "sim/runtime/failure_model.h"
#include "sim/runtime/resize_cost.h"
#include "sim/runtime/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

namespace dlsim {

void Simulation::init_failures() {
  const Cluster& c = *s_.cluster;
  const FailureConfig& f = s_.config.failures;
  FailureState& fs = s_.failures;
  fs.on = f.enabled;
  fs.checkpoints = f.checkpoint_interval_s > 0 || s_.workload->any_checkpoint_interval();
  fs.jobs.assign(s_.jobs.size(), JobFailures{});
  if (!fs.on) return;
  fs.down.assign(c.devices.size(), 0);
  if (!f.log.empty()) {
    // The log's rows in order (checked by its reader); the row's index rides in `generation`.
    for (std::size_t i = 0; i < f.log.size(); ++i) {
      fail_queue_.push(f.log[i].time, EventKind::kFailure, f.log[i].component,
                       static_cast<std::uint32_t>(i));
    }
    return;
  }
  // One stream per component, a pure function of (run seed, component): a component's failures
  // depend on nothing else, whatever the policy does.
  const std::uint32_t components = component_count(c);
  fail_rng_.reserve(components);
  for (std::uint32_t id = 0; id < components; ++id) {
    fail_rng_.push_back(Rng::stream(f.seed, "failures." + component_name(c, id)));
    const FailureProcess* p = process_of(c, f, id);
    if (p == nullptr) continue;
    if (SimTime at = wakeup_after(0, draw_uptime_s(*p, fail_rng_[id])); at != kNever)
      fail_queue_.push(at, EventKind::kFailure, id);
  }
}

namespace {

// A checkpoint timer that a later one replaced, or of a job that is over.
bool expired(const SimState& s, const Event& e) {
  return e.generation != s.failures.jobs[e.subject].epoch || is_over(s.jobs[e.subject].status);
}

} // namespace

bool Simulation::next_failure_time(SimTime& t, bool any) {
  while (!fail_queue_.empty() && fail_queue_.top_kind() == EventKind::kCheckpoint &&
         expired(s_, fail_queue_.top())) {
    fail_queue_.pop();
  }
  // Drawn failures never run out: they keep the run going only while something else does, or
  // while a device is down and a job waits (the repair may let it start).
  if (fail_queue_.empty() || (!any && (s_.failures.down_devices == 0 || s_.pending == 0)))
    return any;
  const SimTime f = fail_queue_.top_time();
  if (!any || f < t) t = f;
  return true;
}

bool Simulation::failure_event_first() const {
  const SimTime ft = fail_queue_.top_time();
  const EventKind fk = fail_queue_.top_kind();
  auto before = [&](SimTime t, EventKind k) { return ft < t || (ft == t && fk < k); };
  if (next_arrival_ < s_.workload->jobs.size() &&
      !before(s_.workload->jobs[next_arrival_].request.submit, EventKind::kArrival)) {
    return false;
  }
  return queue_.empty() || before(queue_.top_time(), queue_.top_kind());
}

void Simulation::apply_failure_event(const Event& e) {
  const FailureConfig& f = s_.config.failures;
  switch (e.kind) {
  case EventKind::kFailure: {
    ++s_.events;
    SimTime duration = 0;
    if (!f.log.empty()) {
      duration = f.log[e.generation].duration;
    } else {
      const FailureProcess* p = process_of(*s_.cluster, f, e.subject);
      duration = from_seconds_ceil(draw_repair_s(*p, fail_rng_[e.subject]), "failures.repair_h");
    }
    fail_component(e.subject, duration);
    return;
  }
  case EventKind::kRepair:
    ++s_.events;
    repair_component(e.subject);
    if (f.log.empty()) {
      const FailureProcess* p = process_of(*s_.cluster, f, e.subject);
      if (SimTime at = wakeup_after(s_.now, draw_uptime_s(*p, fail_rng_[e.subject]));
          at != kNever) {
        fail_queue_.push(at, EventKind::kFailure, e.subject);
      }
    }
    return;
  case EventKind::kCheckpoint:
    if (expired(s_, e)) return;
    ++s_.events;
    checkpoint_due(e.subject);
    return;
  default:
    return;
  }
}

void Simulation::note_down_change() {
  FailureState& fs = s_.failures;
  fs.gpu_down_seconds +=
      static_cast<double>(fs.down_gpus) * to_seconds(s_.now - fs.down_since_change);
  fs.down_since_change = s_.now;
}

void Simulation::fail_component(std::uint32_t component, SimTime duration) {
  const Cluster& c = *s_.cluster;
  FailureState& fs = s_.failures;
  fs.happened.push_back(FailureRecord{s_.now, component, duration});
  note_down_change();
  const DeviceRange range = devices_of(c, component);
  std::vector<JobId> hit;
  for (DeviceId d = range.first; d < range.first + range.count; ++d) {
    const DeviceSlot& slot = s_.slots[d];
    for (unsigned k = 0; k < slot.count; ++k) {
      if (std::find(hit.begin(), hit.end(), slot.jobs[k]) == hit.end()) hit.push_back(slot.jobs[k]);
    }
    if (fs.down[d]++ > 0) continue;
    ++fs.down_devices;
    if (c.type_of(d).kind == DeviceKind::kGpu) ++fs.down_gpus;
    if (slot.count == 0) s_.free.device_taken(c, d);
  }
  if (Component comp = component_of(c, component); comp.kind != ComponentKind::kDevice) {
    s_.changes.nodes.mark(comp.index);
    // Host tasks on the node, by job id (the map's order is not deterministic).
    std::vector<JobId> hosted;
    for (const auto& [j, e] : s_.extras) {
      if (std::find(e.hosts.begin(), e.hosts.end(), comp.index) != e.hosts.end())
        hosted.push_back(j);
    }
    std::sort(hosted.begin(), hosted.end());
    for (JobId j : hosted) {
      if (std::find(hit.begin(), hit.end(), j) == hit.end()) hit.push_back(j);
    }
  } else {
    s_.changes.nodes.mark(c.devices[range.first].node);
  }
  const View view(s_, info_.oracle);
  policy_.on_devices_down(range.first, range.count, view);
  const std::string name = component_name(c, component);
  for (JobId j : hit)
    fail_job(j, name);
  for (JobId j : hit)
    policy_.on_failure(j, view);
  if (SimTime at = s_.now + duration; duration >= 0 && at <= kMaxTime)
    fail_queue_.push(at, EventKind::kRepair, component);
}

void Simulation::repair_component(std::uint32_t component) {
  const Cluster& c = *s_.cluster;
  FailureState& fs = s_.failures;
  note_down_change();
  const DeviceRange range = devices_of(c, component);
  for (DeviceId d = range.first; d < range.first + range.count; ++d) {
    if (--fs.down[d] > 0) continue;
    --fs.down_devices;
    if (c.type_of(d).kind == DeviceKind::kGpu) --fs.down_gpus;
    if (s_.slots[d].count == 0) s_.free.device_freed(c, d);
  }
  const Component comp = component_of(c, component);
  s_.changes.nodes.mark(comp.kind == ComponentKind::kDevice ? c.devices[comp.index].node
                                                            : comp.index);
  const View view(s_, info_.oracle);
  policy_.on_repair(range.first, range.count, view);
}

// A gang fails whole: every task of the job stops, whatever component it was on.
void Simulation::fail_job(JobId j, std::string_view component) {
  JobState& job = s_.jobs[j];
  JobFailures& f = s_.failures.jobs[j];
  settle(j);
  if (f.checkpointing) {
    f.ckpt_time += s_.now - f.since; // the checkpoint being written is lost too
    f.checkpointing = false;
  }
  if (f.restart_paying) {
    f.restart_time += s_.now - f.since;
    f.restart_paying = false;
  }
  if (job.status == JobStatus::kRunning) set_running(j, false);
  const bool counted_pending = job.status == JobStatus::kPending ||
                               job.status == JobStatus::kSuspended ||
                               job.status == JobStatus::kBinding;
  // The work since the last checkpoint is lost: back to its iterations, and its run time since
  // is counted as lost.
  f.lost += job.run_time - f.ckpt_run;
  f.ckpt_run = job.run_time;
  job.done = f.ckpt_done;
  ++f.failures;
  ++s_.failures.interruptions;
  f.restarting = true;
  ++f.epoch; // its checkpoint timer is void
  job.rate = 0;
  cancel_finish(j); // so are its finish and any paid action
  if (!counted_pending) ++s_.pending;
  set_status(j, JobStatus::kPending);
  emit(j, JobAction::kFail, job.devices, component);
  release(j);
}

double Simulation::checkpoint_cost_s(JobId j) const {
  const FailureConfig& f = s_.config.failures;
  if (f.checkpoint_s >= 0) return f.checkpoint_s;
  const JobRequest& req = s_.workload->jobs[j].request;
  const PerfTable& perf = s_.workload->perf;
  if (req.model == 0 || req.model >= perf.traffic.size()) return 0;
  return kCheckpointStateFactor * perf.traffic[req.model].model_bytes /
         (s_.config.checkpoint_gb_s * 1e9);
}

double Simulation::placement_cost(JobId j, double cost_s) {
  JobFailures& f = s_.failures.jobs[j];
  if (!f.restarting) return cost_s;
  f.restarting = false;
  // Every task re-created and the checkpoint read back.
  const double restart_s = s_.config.costs.restart_s + checkpoint_cost_s(j);
  if (restart_s > 0) {
    f.restart_paying = true;
    f.since = s_.now;
  }
  return restart_s;
}

void Simulation::arm_checkpoint(JobId j) {
  JobFailures& f = s_.failures.jobs[j];
  ++f.epoch;
  f.held = false;
  // The job's own interval when its trace gives one (0: none), else the experiment's.
  const double own = s_.workload->details_of(s_.workload->jobs[j].request).checkpoint_interval_s;
  const double interval = own >= 0 ? own : s_.config.failures.checkpoint_interval_s;
  if (interval <= 0) return;
  const SimTime at = wakeup_after(s_.now, interval);
  if (at == kNever) return;
  // Most jobs end before their next checkpoint; their timers would only be popped as void. While
  // the job's projected finish comes first the timer is held back, keeping its place in the
  // queue's order, and queued the moment that finish is voided (reschedule, cancel_finish).
  const std::uint64_t seq = fail_queue_.take_seq();
  const JobState& job = s_.jobs[j];
  if (job.status == JobStatus::kRunning && f.finish_gen == job.generation && f.finish_at <= at) {
    f.held = true;
    f.held_due = at;
    f.held_seq = seq;
    f.held_epoch = f.epoch;
    return;
  }
  fail_queue_.push_taken(at, EventKind::kCheckpoint, j, f.epoch, seq);
}

void Simulation::note_finish(JobId j, SimTime at) {
  JobFailures& f = s_.failures.jobs[j];
  f.finish_at = at;
  f.finish_gen = s_.jobs[j].generation;
  if (f.held && (at == kNever || at > f.held_due)) queue_held_checkpoint(j);
}

void Simulation::queue_held_checkpoint(JobId j) {
  JobFailures& f = s_.failures.jobs[j];
  f.held = false;
  // A timer whose job ended, failed or was re-armed is void: it would only be dropped.
  if (f.held_epoch != f.epoch || is_over(s_.jobs[j].status)) return;
  // The finish it was held for came no earlier than now, and no later than the timer.
  assert(f.held_due >= s_.now);
  fail_queue_.push_taken(f.held_due, EventKind::kCheckpoint, j, f.epoch, f.held_seq);
}

void Simulation::checkpoint_due(JobId j) {
  JobState& job = s_.jobs[j];
  JobFailures& f = s_.failures.jobs[j];
  if (job.status != JobStatus::kRunning) {
    // Paying for an action (a start, migration, resize) on its devices: try again an interval
    // later. Not placed or over: the next placement arms a new timer.
    if (!job.devices.empty() && !is_over(job.status)) arm_checkpoint(j);
    return;
  }
  settle(j);
  f.pending_done = job.done;
  f.pending_run = job.run_time;
  const double cost_s = checkpoint_cost_s(j);
  emit(j, JobAction::kCheckpoint, job.devices);
  if (cost_s <= 0) {
    f.ckpt_done = f.pending_done;
    f.ckpt_run = f.pending_run;
    ++f.checkpoints;
    arm_checkpoint(j);
    return;
  }
  // The job pauses on its devices while it writes (status resizing, as any paid pause); the
  // others on its devices go on without it.
  f.checkpointing = true;
  f.since = s_.now;
  set_running(j, false);
  job.rate = 0;
  cancel_finish(j);
  set_status(j, JobStatus::kResizing);
  refresh_rates(job.devices);
  queue_.push(time_after(s_.now, cost_s, "failures.checkpoint_s"), EventKind::kActionDone, j,
              job.generation);
}

void Simulation::after_paid(JobId j, JobStatus was) {
  JobState& job = s_.jobs[j];
  JobFailures& f = s_.failures.jobs[j];
  if (was == JobStatus::kSuspending) {
    // A preemption writes a checkpoint: a later failure loses nothing from before it.
    f.ckpt_done = job.done;
    f.ckpt_run = job.run_time;
    ++f.epoch;
    return;
  }
  const bool checkpointed = f.checkpointing;
  if (checkpointed) {
    f.ckpt_done = f.pending_done;
    f.ckpt_run = f.pending_run;
    f.ckpt_time += s_.now - f.since;
    f.checkpointing = false;
    ++f.checkpoints;
  }
  if (f.restart_paying) {
    f.restart_time += s_.now - f.since;
    f.restart_paying = false;
  }
  // A paid start or resume, or the end of a checkpoint, begins a new interval; after a
  // migration or a resize the timer runs on.
  if (s_.failures.checkpoints && (was == JobStatus::kStarting || checkpointed)) arm_checkpoint(j);
}

} // namespace dlsim
