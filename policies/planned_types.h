// A round's plan made real: a policy that decides, round by round, which jobs run and on which
// device type (Gavel's rounds) hands its plan here, and the runtime's actions follow from it. Not
// a scheduling rule of its own: what a job's move costs (a migration, or a checkpoint out and a
// resume) is the runtime's.
#pragma once

#include "policies/placement.h"
#include "sim/runtime/control.h"

#include <cstdint>
#include <span>

namespace dlsim {

// Makes the running set what the plan says, as far as the devices allow now: planned[j] is job
// j's type this round (kNoType, type_choice.h, for none), `order` the planned jobs in the order
// their devices are placed. A running job of no planned type is suspended; a planned one on
// another type migrates there (suspended when the type's devices are still held, to move out
// through a checkpoint); a pending or suspended one starts or resumes there when it fits. Host
// tasks are left alone. The rest happens when suspensions release devices (the policy calls
// this again when an action completes).
void realize_planned_types(Control& control, std::span<const std::int32_t> planned,
                           std::span<const JobId> order, Placement placement);

} // namespace dlsim
