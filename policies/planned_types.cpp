#include "policies/planned_types.h"

#include "policies/priority_pass.h"
#include "policies/type_choice.h"

#include <vector>

namespace dlsim {

namespace {

void suspend_unplanned(Control& control, std::span<const std::int32_t> planned) {
  std::vector<JobId> leaving;
  for (JobId j : control.running_jobs()) {
    const JobState& s = control.state(j);
    if (s.status != JobStatus::kRunning || is_host_task(control.request(j))) continue;
    if (planned[j] == kNoType) leaving.push_back(j);
  }
  for (JobId j : leaving)
    control.suspend(j, "not placed this round");
}

} // namespace

void realize_planned_types(Control& control, std::span<const std::int32_t> planned,
                           std::span<const JobId> order, Placement placement) {
  suspend_unplanned(control, planned);
  for (JobId j : order) {
    const JobState& s = control.state(j);
    const auto t = static_cast<DeviceTypeId>(planned[j]);
    if (planned[j] == kNoType || is_over(s.status)) continue;
    if (is_holder(s) && s.type == t) continue;
    if (s.status == JobStatus::kRunning) {
      auto devices = place_on_type(control, j, placement, control.request(j).workers, t);
      if (devices) {
        control.migrate(j, *devices, "placed on another type this round");
      } else {
        // The type's devices are still held; moving out through a checkpoint frees this job's
        // own devices for the job placed there (no cycle of waiting migrations).
        control.suspend(j, "to move to another type this round");
      }
      continue;
    }
    if (s.status != JobStatus::kPending && s.status != JobStatus::kSuspended) continue;
    auto devices = place_on_type(control, j, placement, control.request(j).workers, t);
    if (!devices) continue;
    if (s.status == JobStatus::kPending)
      control.start(j, *devices, "placed this round");
    else
      control.resume(j, *devices, "placed this round");
  }
}

} // namespace dlsim
