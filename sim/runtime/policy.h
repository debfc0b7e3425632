// The contract between the runtime and a scheduling policy.
#pragma once

#include "sim/runtime/control.h"

namespace dlsim {

// The runtime applies every event at a timestamp (finishes, completed actions, arrivals,
// wake-ups), telling the policy what changed through the on_* calls, then calls schedule()
// once, so a policy sees one consistent state and decides for all of it.
class Policy {
public:
  virtual ~Policy() = default;
  virtual void on_arrival(JobId /*job*/, const View& /*view*/) {}
  virtual void on_finish(JobId /*job*/, const View& /*view*/) {}
  // A start, resume, suspend, migration or resize finished paying its cost.
  virtual void on_action_done(JobId /*job*/, const View& /*view*/) {}
  // A failure stopped the job (docs/failures.md): it lost its work since its last checkpoint,
  // holds nothing and is pending again; its next placement pays the restart cost. By default it
  // is handed back as if it had just arrived. Only policies registered as handling failures
  // (PolicyEntry::handles_failures) run with failures on.
  virtual void on_failure(JobId job, const View& view) { on_arrival(job, view); }
  // Devices [first, first + count) went down (before the jobs on them are told), or were
  // repaired: View::device_down says which are down now.
  virtual void on_devices_down(DeviceId /*first*/, std::uint32_t /*count*/, const View& /*view*/) {}
  virtual void on_repair(DeviceId /*first*/, std::uint32_t /*count*/, const View& /*view*/) {}
  virtual void schedule(Control& control) = 0;
  // Called once when the run is set up: throws InputError naming the key when the policy's
  // parameters cannot work with the runtime's (e.g. a time slice not longer than a switch).
  virtual void check_config(const RuntimeConfig& /*config*/) const {}
  // The same for the cluster (e.g. more spare nodes than the cluster has).
  virtual void check_cluster(const Cluster& /*cluster*/) const {}
};

} // namespace dlsim
