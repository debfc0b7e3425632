// How the keys of the keyed pass's policies move while their jobs hold devices (KeyMotion, for
// MovingOrder): each is the derivative of the policy's key function between two changes the
// runtime makes to the job, so a policy that changes its key changes its motion with it.
#pragma once

#include "policies/moving_order.h"
#include "sim/runtime/view.h"

namespace dlsim {

inline double status_number(const JobState& s) {
  return static_cast<double>(static_cast<int>(s.status));
}

// The oracle's remaining time times `times` (srtf: 1; SRSF: the devices asked for):
// max(0, iterations - done) x seconds per iteration x times, falling at the job's rate while
// it runs, clamped at 0. Unknown for a job with phases (its cost per iteration changes).
inline KeyMotion remaining_motion(const View& view, JobId j, double times) {
  KeyMotion m;
  const JobState& s = view.state(j);
  m.scale = view.oracle_total_s(j) * times;
  m.floor = 0;
  m.per_s = s.status == JobStatus::kRunning
                ? -(s.rate * view.oracle_seconds_per_iteration(j)) * times
                : 0; // done_at is `done` at any time
  return m;
}

// Attained device-seconds (attained_now), growing at the job's device count while it runs;
// the key's tie-break is the job's status (holding or not). Jobs with equal attained service,
// devices, last update and status have equal keys at any time, as long as neither changes: the
// runtime settles a job (its attained service to now, computed in two parts from then on) only
// along with a change it logs, but for a time-sliced job's share (Simulation::refresh_rates).
inline KeyMotion attained_motion(const View& view, JobId j) {
  KeyMotion m;
  const JobState& s = view.state(j);
  const auto devices = static_cast<double>(s.devices.size());
  m.per_s = s.status == JobStatus::kRunning ? devices : 0;
  m.inputs = {s.attained, devices, static_cast<double>(s.last_update), status_number(s), 0, 0};
  m.same_inputs_means_same_key = !s.sliced;
  return m;
}

// Progress times a job's own factor (las with hetero: iterations done x its fastest type's
// seconds per iteration x its devices), growing at its rate times both while it runs.
inline KeyMotion progress_motion(const View& view, JobId j, double factor, double devices) {
  KeyMotion m;
  const JobState& s = view.state(j);
  m.per_s = s.status == JobStatus::kRunning ? s.rate * factor * devices : 0;
  m.inputs = {s.done,           s.rate, static_cast<double>(s.last_update),
              status_number(s), factor, devices};
  m.same_inputs_means_same_key = !s.sliced;
  return m;
}

} // namespace dlsim
