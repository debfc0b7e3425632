// The policy's actions (Control): each checked by admission (admission.h), then applied with its
// modeled cost: what the job holds through the ledger (ledger.h), its status, its rate and its
// next event through the event loop (simulation.cpp).
#include "sim/cluster/fit.h"
#include "sim/engine/error.h"
#include "sim/runtime/admission.h"
#include "sim/runtime/ledger.h"
#include "sim/runtime/rate_model.h"
#include "sim/runtime/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <vector>

namespace dlsim {

void Simulation::refuse(JobId j, const std::string& action, const std::string& reason) const {
  throw ActionError(fmt::format("policy '{}': job '{}': {} refused at t={}s: {}", info_.name,
                                s_.workload->job_names[j], action, to_seconds(s_.now), reason));
}

void Simulation::check_count(JobId j, std::uint64_t count, std::uint32_t most,
                             const std::string& action) const {
  if (count >= most) {
    refuse(j, action,
           fmt::format("the job has had {} of them, the most that dlsim counts per job", count));
  }
}

// A device job or a host task onto its workers' places: one path for both.
void Simulation::do_place(JobId j, WorkerPlaces at, double cost_s, JobStatus paying) {
  JobState& job = s_.jobs[j];
  --s_.pending;
  if (s_.failures.any()) cost_s = placement_cost(j, cost_s);
  // A fresh placement holds the request's cores (a change by set_cpus lasts while it runs).
  if (job.own_cores) {
    job.own_cores = false;
    s_.drop_unused_extras(j);
  }
  ledger::occupy(s_, j, at);
  ledger::occupy_ps(s_, j);
  if (job.first_start < 0) job.first_start = s_.now;
  job.last_update = s_.now;
  job.rate = 0;
  cancel_finish(j);
  if (cost_s > 0) {
    set_status(j, paying);
    queue_.push(time_after(s_.now, cost_s, "costs.start_s / costs.resume_s"),
                EventKind::kActionDone, j, job.generation);
    return;
  }
  set_status(j, JobStatus::kRunning);
  set_running(j, true);
  refresh_job(j);
  if (s_.failures.checkpoints) arm_checkpoint(j);
}

void Simulation::do_set_share(JobId j, double share_min, double share_max,
                              std::string_view reason) {
  JobState& job = s_.jobs[j];
  settle(j);
  const bool was_controlled = s_.under_controller(j);
  const double old_min = s_.share_min(j);
  // Stop first, with the old shares, so that the device's effective work is taken out as it
  // was put in.
  const double cost_s = s_.config.costs.set_share_s;
  if (cost_s > 0) set_running(j, false);
  for (DeviceId d : job.devices) {
    DeviceSlot& slot = s_.slots[d];
    slot.guaranteed += share_min - old_min;
    slot.controlled -= was_controlled ? 1 : 0;
  }
  s_.extras[j].shares = JobExtras::Shares{share_min, share_max};
  job.own_share = true;
  const bool controlled = s_.under_controller(j);
  for (DeviceId d : job.devices)
    s_.slots[d].controlled += controlled ? 1 : 0;
  job.rate = 0;
  s_.changes.jobs.mark(j);
  cancel_finish(j);
  emit(j, JobAction::kSetShare, job.devices, reason);
  if (cost_s > 0) {
    // The job's container is re-created with the new limits: it pauses (status resizing) and
    // the others on its devices share its time meanwhile.
    set_status(j, JobStatus::kResizing);
    refresh_rates(job.devices);
    queue_.push(time_after(s_.now, cost_s, "costs.set_share_s"), EventKind::kActionDone, j,
                job.generation);
    return;
  }
  for (DeviceId d : job.devices)
    refresh_effective(d, kNoJob);
  refresh_rates(job.devices);
}

void Simulation::do_bind(JobId j, std::span<const DeviceId> devices) {
  ledger::occupy(s_, j, WorkerPlaces::on_devices(devices));
  set_status(j, JobStatus::kBinding);
  cancel_finish(j);
}

void Simulation::do_unbind(JobId j) {
  set_status(j, JobStatus::kPending);
  cancel_finish(j);
  release(j);
}

void Simulation::do_cancel(JobId j, std::string_view reason) {
  JobState& job = s_.jobs[j];
  settle(j);
  bool holding = !job.devices.empty() || !s_.hosts_of(j).empty();
  if (job.status == JobStatus::kRunning) set_running(j, false);
  if (job.status == JobStatus::kPending || job.status == JobStatus::kSuspended ||
      job.status == JobStatus::kBinding) {
    --s_.pending;
  }
  set_status(j, JobStatus::kCancelled);
  job.rate = 0;
  job.end = s_.now;
  cancel_finish(j);
  ++s_.cancelled;
  emit(j, JobAction::kCancel, job.devices, reason);
  if (holding) release(j);
  if (job.sliced) retire_turns(j);
}

void Simulation::do_suspend(JobId j, std::string_view reason) {
  JobState& job = s_.jobs[j];
  check_count(j, job.preemptions, JobState::kMaxPreemptions, "suspend");
  settle(j);
  if (job.status == JobStatus::kRunning) {
    set_running(j, false);
    set_status(j, JobStatus::kSuspending); // not running: co-located jobs speed up now
    refresh_rates(job.devices);
  }
  job.rate = 0;
  cancel_finish(j);
  ++job.preemptions;
  double cost_s = s_.config.costs.suspend_s;
  if (cost_s > 0) {
    set_status(j, JobStatus::kSuspending);
    queue_.push(time_after(s_.now, cost_s, "costs.suspend_s"), EventKind::kActionDone, j,
                job.generation);
    emit(j, JobAction::kSuspend, job.devices, reason);
    return;
  }
  set_status(j, JobStatus::kSuspended);
  ++s_.pending;
  emit(j, JobAction::kSuspend, job.devices, reason);
  emit(j, JobAction::kSuspended, job.devices);
  release(j);
}

void Simulation::do_move(JobId j, std::span<const DeviceId> devices, double cost_s,
                         JobStatus paying) {
  JobState& job = s_.jobs[j];
  settle(j);
  set_running(j, false);
  set_status(j, paying);
  std::vector<DeviceId> target(devices.begin(), devices.end());
  release(j);
  ledger::occupy(s_, j, WorkerPlaces::on_devices(target));
  ledger::occupy_ps(s_, j);
  job.rate = 0;
  cancel_finish(j);
  if (cost_s > 0) {
    queue_.push(time_after(s_.now, cost_s, "costs.migrate_s / costs.resize_s"),
                EventKind::kActionDone, j, job.generation);
    return;
  }
  set_status(j, JobStatus::kRunning);
  set_running(j, true);
  refresh_rates(job.devices);
}

// ---- Control: the policy-facing side ------------------------------------------------------

namespace {

Sharing sharing_of(const JobState& job) {
  if (job.sliced) return Sharing::kSlice;
  return job.packed ? Sharing::kPack : Sharing::kExclusive;
}

} // namespace

std::optional<std::string> Control::check_start(JobId j, std::span<const DeviceId> devices,
                                                bool allow_shared) const {
  JobStatus st = state(j).status;
  if (st != JobStatus::kPending && st != JobStatus::kSuspended) {
    return fmt::format("job is {}, not pending or suspended", to_string(st));
  }
  if (is_host_task(request(j)) && devices.empty()) {
    if (host_fit(j)) return std::nullopt;
    return "no node has the host task's cores and memory free";
  }
  return check_place(sim_.s_, j, devices, allow_shared ? Sharing::kPack : Sharing::kExclusive, {});
}

bool Control::place_host_task(JobId j, std::span<const DeviceId> devices, const char* action,
                              HostFrom from, std::string_view reason) {
  if (!is_host_task(request(j))) return false;
  if (!devices.empty()) {
    sim_.refuse(j, action,
                fmt::format("{} device(s) given for a host task, which holds none (an empty "
                            "list places it on View::host_fit's nodes)",
                            devices.size()));
  }
  JobStatus st = state(j).status;
  const bool pending_ok = from != HostFrom::kSuspended;
  const bool suspended_ok = from != HostFrom::kPending;
  if (!(pending_ok && st == JobStatus::kPending) &&
      !(suspended_ok && st == JobStatus::kSuspended)) {
    sim_.refuse(j, action,
                fmt::format("job is {}, not {}", to_string(st),
                            from == HostFrom::kPending     ? "pending"
                            : from == HostFrom::kSuspended ? "suspended"
                                                           : "pending or suspended"));
  }
  std::optional<std::vector<NodeId>> nodes = host_fit(j);
  if (!nodes) sim_.refuse(j, action, "no node has the host task's cores and memory free");
  start_on_nodes(j, *nodes, reason);
  return true;
}

void Control::start_on_nodes(JobId j, std::span<const NodeId> nodes, std::string_view reason) {
  JobStatus st = state(j).status;
  if (st != JobStatus::kPending && st != JobStatus::kSuspended) {
    sim_.refuse(j, "start_on_nodes",
                fmt::format("job is {}, not pending or suspended", to_string(st)));
  }
  if (auto why = check_hosts(sim_.s_, j, nodes)) sim_.refuse(j, "start_on_nodes", *why);
  const bool resuming = st == JobStatus::kSuspended;
  sim_.s_.jobs[j].packed = false;
  sim_.s_.jobs[j].sliced = false;
  sim_.do_place(j, WorkerPlaces::on_nodes(nodes),
                resuming ? config().costs.resume_s : config().costs.start_s, JobStatus::kStarting);
  sim_.emit(j, resuming ? JobAction::kResume : JobAction::kStart, {}, reason);
}

void Control::start(JobId j, std::span<const DeviceId> devices, std::string_view reason) {
  if (place_host_task(j, devices, "start", HostFrom::kPending, reason)) return;
  const JobState& job = state(j);
  if (job.status == JobStatus::kBinding) {
    // The gang must include every bound device: they become part of the started allocation.
    for (DeviceId d : job.devices) {
      if (std::find(devices.begin(), devices.end(), d) == devices.end()) {
        sim_.refuse(j, "start", fmt::format("bound device {} is not in the allocation", d));
      }
    }
    std::vector<DeviceId> bound = job.devices.to_vector();
    if (auto why = check_place(sim_.s_, j, devices, Sharing::kExclusive, bound))
      sim_.refuse(j, "start", *why);
    std::vector<DeviceId> all(devices.begin(), devices.end());
    sim_.set_status(j, JobStatus::kPending);
    sim_.release(j);
    sim_.do_place(j, WorkerPlaces::on_devices(all), config().costs.start_s, JobStatus::kStarting);
    sim_.emit(j, JobAction::kStart, state(j).devices, reason);
    return;
  }
  if (job.status != JobStatus::kPending) {
    sim_.refuse(j, "start", fmt::format("job is {}, not pending", to_string(job.status)));
  }
  if (auto why = check_place(sim_.s_, j, devices, Sharing::kExclusive, {}))
    sim_.refuse(j, "start", *why);
  sim_.s_.jobs[j].packed = false;
  sim_.s_.jobs[j].sliced = false;
  sim_.do_place(j, WorkerPlaces::on_devices(devices), config().costs.start_s, JobStatus::kStarting);
  sim_.emit(j, JobAction::kStart, state(j).devices, reason);
}

void Control::bind(JobId j, std::span<const DeviceId> devices, std::string_view reason) {
  const JobState& job = state(j);
  if (job.status != JobStatus::kPending && job.status != JobStatus::kBinding) {
    sim_.refuse(j, "bind", fmt::format("job is {}, not pending or binding", to_string(job.status)));
  }
  if (auto why = check_bind(sim_.s_, j, devices)) sim_.refuse(j, "bind", *why);
  sim_.do_bind(j, devices);
  sim_.emit(j, JobAction::kBind, devices, reason);
}

void Control::unbind(JobId j, std::string_view reason) {
  if (state(j).status != JobStatus::kBinding) {
    sim_.refuse(j, "unbind", fmt::format("job is {}, not binding", to_string(state(j).status)));
  }
  sim_.emit(j, JobAction::kUnbind, state(j).devices, reason);
  sim_.do_unbind(j);
}

void Control::pack(JobId j, std::span<const DeviceId> devices, std::string_view reason) {
  if (place_host_task(j, devices, "pack", HostFrom::kEither, reason)) return;
  JobStatus st = state(j).status;
  if (st != JobStatus::kPending && st != JobStatus::kSuspended) {
    sim_.refuse(j, "pack", fmt::format("job is {}, not pending or suspended", to_string(st)));
  }
  if (auto why = check_place(sim_.s_, j, devices, Sharing::kPack, {})) sim_.refuse(j, "pack", *why);
  sim_.s_.jobs[j].packed = true;
  sim_.s_.jobs[j].sliced = false;
  double cost = st == JobStatus::kSuspended ? config().costs.resume_s : config().costs.start_s;
  sim_.do_place(j, WorkerPlaces::on_devices(devices), cost, JobStatus::kStarting);
  sim_.emit(j, JobAction::kPack, state(j).devices, reason);
}

void Control::timeslice(JobId j, std::span<const DeviceId> devices, double slice_s,
                        std::string_view reason) {
  if (is_host_task(request(j))) sim_.refuse(j, "timeslice", "a host task holds no devices");
  JobStatus st = state(j).status;
  if (st != JobStatus::kPending && st != JobStatus::kSuspended) {
    sim_.refuse(j, "timeslice", fmt::format("job is {}, not pending or suspended", to_string(st)));
  }
  if (!(slice_s > 0))
    sim_.refuse(j, "timeslice", fmt::format("slice must be positive, got {} s", slice_s));
  if (!(slice_s > config().costs.switch_s)) {
    sim_.refuse(j, "timeslice",
                fmt::format("a slice of {} s is not longer than costs.switch_s = {} s", slice_s,
                            config().costs.switch_s));
  }
  if (auto why = check_place(sim_.s_, j, devices, Sharing::kSlice, {}, slice_s))
    sim_.refuse(j, "timeslice", *why);
  JobState& job = sim_.s_.jobs[j];
  job.sliced = true;
  job.packed = false;
  sim_.s_.extras[j].slice_s = slice_s;
  double cost = st == JobStatus::kSuspended ? config().costs.resume_s : config().costs.start_s;
  sim_.do_place(j, WorkerPlaces::on_devices(devices), cost, JobStatus::kStarting);
  sim_.emit(j, JobAction::kSlice, state(j).devices, reason);
}

void Control::suspend(JobId j, std::string_view reason) {
  JobStatus st = state(j).status;
  if (st != JobStatus::kRunning && st != JobStatus::kStarting) {
    sim_.refuse(j, "suspend", fmt::format("job is {}, not running or starting", to_string(st)));
  }
  sim_.do_suspend(j, reason);
}

void Control::resume(JobId j, std::span<const DeviceId> devices, std::string_view reason) {
  if (place_host_task(j, devices, "resume", HostFrom::kSuspended, reason)) return;
  if (state(j).status != JobStatus::kSuspended) {
    sim_.refuse(j, "resume", fmt::format("job is {}, not suspended", to_string(state(j).status)));
  }
  if (auto why = check_place(sim_.s_, j, devices, Sharing::kExclusive, {}))
    sim_.refuse(j, "resume", *why);
  sim_.s_.jobs[j].packed = false;
  sim_.s_.jobs[j].sliced = false;
  sim_.do_place(j, WorkerPlaces::on_devices(devices), config().costs.resume_s,
                JobStatus::kStarting);
  sim_.emit(j, JobAction::kResume, state(j).devices, reason);
}

std::optional<std::string> Control::check_migrate(JobId j,
                                                  std::span<const DeviceId> devices) const {
  if (is_host_task(request(j))) return "a host task holds no devices";
  const JobState& job = state(j);
  if (job.status != JobStatus::kRunning)
    return fmt::format("job is {}, not running", to_string(job.status));
  if (devices.size() != job.devices.size()) {
    return fmt::format("{} devices given for a job holding {} (use resize)", devices.size(),
                       job.devices.size());
  }
  return check_place(sim_.s_, j, devices, sharing_of(job), job.devices, sim_.s_.slice_s(j));
}

void Control::migrate(JobId j, std::span<const DeviceId> devices, std::string_view reason) {
  if (auto why = check_migrate(j, devices)) sim_.refuse(j, "migrate", *why);
  sim_.check_count(j, state(j).migrations, JobState::kMaxMoves, "migrate");
  ++sim_.s_.jobs[j].migrations;
  sim_.do_move(j, devices, config().costs.migrate_s, JobStatus::kMigrating);
  sim_.emit(j, JobAction::kMigrate, state(j).devices, reason);
}

void Control::resize(JobId j, std::span<const DeviceId> devices, std::string_view reason) {
  if (is_host_task(request(j))) sim_.refuse(j, "resize", "a host task holds no devices");
  const JobState& job = state(j);
  if (job.status != JobStatus::kRunning) {
    sim_.refuse(j, "resize", fmt::format("job is {}, not running", to_string(job.status)));
  }
  if (auto why = check_place(sim_.s_, j, devices, sharing_of(job), job.devices, sim_.s_.slice_s(j)))
    sim_.refuse(j, "resize", *why);
  sim_.check_count(j, job.resizes, JobState::kMaxMoves, "resize");
  ++sim_.s_.jobs[j].resizes;
  sim_.do_move(j, devices, sim_.resize_cost(j), JobStatus::kResizing);
  sim_.emit(j, JobAction::kResize, state(j).devices, reason);
}

void Control::set_share(JobId j, double share_min, double share_max, std::string_view reason) {
  if (is_host_task(request(j))) sim_.refuse(j, "set_share", "a host task holds no devices");
  const JobState& job = state(j);
  if (job.status != JobStatus::kRunning) {
    sim_.refuse(j, "set_share", fmt::format("job is {}, not running", to_string(job.status)));
  }
  if (!job.packed) sim_.refuse(j, "set_share", "job was not placed with pack");
  if (!(share_min > 0 && share_min <= share_max && share_max <= 1)) {
    sim_.refuse(j, "set_share",
                fmt::format("shares must satisfy 0 < min <= max <= 1, got min {} max {}", share_min,
                            share_max));
  }
  if (share_min < 1 && request(j).devices_per_worker != 1) {
    sim_.refuse(j, "set_share", "a share of a device needs one device per worker");
  }
  const double own_min = sim_.s_.share_min(j);
  for (DeviceId d : job.devices) {
    const DeviceSlot& slot = device(d);
    const double others = slot.guaranteed - own_min;
    if (slot.count > 1 && (share_min >= 1) != (own_min >= 1)) {
      sim_.refuse(j, "set_share",
                  fmt::format("device {} is shared: a job cannot move between a share and a "
                              "whole device there",
                              d));
    }
    if (share_min < 1 && !fits_in(others + share_min, 1)) {
      sim_.refuse(j, "set_share",
                  fmt::format("device {} has {} of its share guaranteed to others, {} asked", d,
                              others, share_min));
    }
  }
  sim_.do_set_share(j, share_min, share_max, reason);
}

void Control::cancel(JobId j, std::string_view reason) {
  JobStatus st = state(j).status;
  if (st == JobStatus::kFuture || is_over(st)) {
    sim_.refuse(j, "cancel", fmt::format("job is {}", to_string(st)));
  }
  sim_.do_cancel(j, reason);
}

void Control::wake_at(SimTime t) {
  sim_.wake_at(t);
}

} // namespace dlsim
