// Observers watch a run without being part of it: metrics, time series, event logs and
// invariant checks subscribe here; the engine loop never knows what they compute.
#pragma once

#include "sim/runtime/view.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace dlsim {

// What happened to a job (docs/outputs.md#eventscsv). Actions a policy takes carry the devices
// they act on; kRunning and kSuspended mark the end of a start/resume/migrate/resize cost and
// of a suspend cost.
enum class JobAction : std::uint8_t {
  kSubmit,
  kBind,       // devices bound to some workers, not started (devices: the new ones)
  kUnbind,     // bound devices released (devices: the released ones)
  kStart,      // onto free devices
  kPack,       // onto devices other jobs may hold, running at once
  kSlice,      // onto devices shared by taking turns
  kResume,     // a suspended job onto free devices
  kRunning,    // the action's cost is paid: making progress
  kSuspend,    // stops making progress, writes its checkpoint (devices: still held)
  kSuspended,  // checkpoint written: devices released
  kMigrate,    // devices: the new ones
  kResize,     // devices: the new ones
  kFinish,     // devices: the released ones
  kCancel,     // devices: the released ones (none if it held none)
  kSetShare,   // its share of each device changed (devices: the ones it holds)
  kFail,       // a failure stopped it (devices: the released ones; reason: the component)
  kCheckpoint, // writes a periodic checkpoint, no progress (devices: the ones it holds)
};

std::string_view to_string(JobAction a);

struct JobEvent {
  SimTime time = 0;
  JobId job = 0;
  JobAction action = JobAction::kSubmit;
  std::span<const DeviceId> devices;
  std::string_view reason; // what the policy said, when it said something
};

class RunObserver {
public:
  virtual ~RunObserver() = default;
  // The state was constant over [from, to); called before the events at `to` are applied.
  virtual void on_advance(SimTime /*from*/, SimTime /*to*/, const View& /*view*/) {}
  virtual void on_job_finished(JobId /*job*/, const View& /*view*/) {}
  // After the policy decided at the current timestamp: the state the next interval will have.
  virtual void on_decided(const View& /*view*/) {}
  virtual void on_run_end(const View& /*view*/) {}
  // Every job event, in the order applied, when wants_job_events() is true. The runtime asks
  // once, at add_observer, so that a run without such observers pays one branch per event.
  [[nodiscard]] virtual bool wants_job_events() const { return false; }
  virtual void on_job_event(const JobEvent& /*event*/, const View& /*view*/) {}
};

} // namespace dlsim
