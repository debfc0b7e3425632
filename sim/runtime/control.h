// What a policy may do: the validated actions. Each checks its preconditions (device free or
// shareable, right type, gang whole, node CPUs and memory), costs simulated time from
// RuntimeConfig::costs, and throws ActionError naming the policy, the job and the reason when
// refused. check_*() tells without acting. `reason`, when a policy gives one, goes with the
// action to the observers (events.csv): why it started, preempted or moved the job.
#pragma once

#include "sim/runtime/view.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace dlsim {

class Simulation;

class Control : public View {
public:
  Control(Simulation& sim, const SimState& s, bool oracle) : View(s, oracle), sim_(sim) {}

  // Pending job onto free devices (devices_per_worker consecutive ids per worker, one node each).
  // A binding job starts with all its bound devices plus the rest of its gang. A host task (job.h
  // is_host_task) takes an empty list and goes to View::host_fit's nodes; so do pack and resume.
  void start(JobId j, std::span<const DeviceId> devices, std::string_view reason = {});
  // Binds whole workers of a pending job to free devices without starting it: what a scheduler
  // that places pods one at a time does (Kubernetes' default). The devices stay held, idle,
  // until start() or unbind(). No cost.
  void bind(JobId j, std::span<const DeviceId> devices, std::string_view reason = {});
  // Releases every device a binding job holds; it becomes pending again.
  void unbind(JobId j, std::string_view reason = {});
  // Pending or suspended job onto devices that other jobs may already hold (co-location).
  void pack(JobId j, std::span<const DeviceId> devices, std::string_view reason = {});
  // Pending or suspended job onto devices shared by taking turns with other time-sliced jobs
  // (Gandiva): k jobs on a device each compute 1/k of the time, less one costs.switch_s per
  // slice. All jobs on a sliced device use the same slice_s.
  void timeslice(JobId j, std::span<const DeviceId> devices, double slice_s,
                 std::string_view reason = {});
  // Preempt to a checkpoint; devices are released when the suspend cost has been paid.
  void suspend(JobId j, std::string_view reason = {});
  void resume(JobId j, std::span<const DeviceId> devices, std::string_view reason = {});
  // Running job to other devices (it may keep some of its own).
  void migrate(JobId j, std::span<const DeviceId> devices, std::string_view reason = {});
  // Running elastic job to another worker count within [min_workers, max_workers].
  // Its cost is runtime.resize's (docs/scaling.md#resize-mechanisms).
  void resize(JobId j, std::span<const DeviceId> devices, std::string_view reason = {});
  // Changes a running parameter-server job's shards to `ps` >= 1 (the PS/worker ratio), on its
  // own devices: it pauses for the same cost as a resize (elastic_actions.cpp).
  void set_ps(JobId j, std::uint32_t ps, std::string_view reason = {});
  // Changes a running job's CPU cores per parameter server and per worker (at least the
  // request's ps_cpus and cpus_per_worker; ps_cores only for a job whose request gives ps_cpus),
  // on its own nodes: it pauses for a TensorFlow restart, costs.restart_s plus the checkpoint
  // (elastic_actions.cpp, docs/runtime.md#cpu-resize).
  void set_cpus(JobId j, double ps_cores, double worker_cores, std::string_view reason = {});
  // Changes a running packed job's guaranteed (min) and largest (max) share of each of its
  // devices, 0 < min <= max <= 1; the new min must fit beside the other holders' guarantees. The
  // job pauses for costs.set_share_s (status resizing), then runs with the new shares; at 0 they
  // apply at once (docs/runtime.md#fractional-shares).
  void set_share(JobId j, double share_min, double share_max, std::string_view reason = {});
  // Stops a job for good, whatever its state (pending, running, suspended...): its devices are
  // released at once and it ends as `cancelled`. No cost.
  void cancel(JobId j, std::string_view reason = {});
  // Pending or suspended host task (job.h is_host_task) onto nodes, one entry per worker (a node
  // listed k times holds k workers), each taking cpus_per_worker cores and mem_gb_per_worker GB
  // there. Costs costs.start_s, or costs.resume_s when suspended (docs/runtime.md#host-tasks).
  void start_on_nodes(JobId j, std::span<const NodeId> nodes, std::string_view reason = {});
  // Ask to be scheduled again at time t (a round-based policy's timer).
  void wake_at(SimTime t);

  // The reason start/pack/resume would refuse, or nullopt when it would succeed.
  [[nodiscard]] std::optional<std::string> check_start(JobId j, std::span<const DeviceId> devices,
                                                       bool allow_shared = false) const;
  // The reason migrate would refuse, or nullopt when it would succeed.
  [[nodiscard]] std::optional<std::string> check_migrate(JobId j,
                                                         std::span<const DeviceId> devices) const;

private:
  enum class HostFrom : std::uint8_t { kPending, kSuspended, kEither };
  // start, pack and resume of a host task: false when j is not one.
  bool place_host_task(JobId j, std::span<const DeviceId> devices, const char* action,
                       HostFrom from, std::string_view reason);

  Simulation& sim_;
};

} // namespace dlsim
