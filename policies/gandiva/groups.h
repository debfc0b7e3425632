// Placing jobs into Gandiva's device groups: a new group on free devices, or joining the
// least-loaded group of the job's GPU-count class (over-subscription by time-slicing, Xiao et
// al., OSDI'18, sec. 4.1 and 5.1).
#pragma once

#include "policies/gandiva/state.h"
#include "sim/runtime/control.h"

namespace dlsim::gandiva {

// Places parked member j on group g's devices in the group's mode; false (and no action) when
// the devices are not ready for it yet (a member is still being suspended, say).
bool place_member(Control& control, State& st, std::uint32_t g, JobId j);
// A new group for waiting job j on `devices` (free), j placed on it at once.
void start_group(Control& control, State& st, JobId j, std::vector<DeviceId> devices);
// True when waiting job j may join group g now: same class and type, room, node resources.
bool can_join(const View& view, const Group& g, JobId j);
// Joins waiting job j to the least-loaded group it may join; false when there is none. A group
// left with one packed job is returned to time-slicing for the newcomer.
bool join_least_loaded(Control& control, State& st, JobId j);
// Suspends every member that holds the devices; the group takes `mode` once all are off them
// (settle_parked then places them again).
void change_mode(Control& control, State& st, Group& g, Mode mode);
// Fluid mode: places parked members (after a mode change) as soon as their devices are ready.
void settle_parked(Control& control, State& st);

} // namespace dlsim::gandiva
