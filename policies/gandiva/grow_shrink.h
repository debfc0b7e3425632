// Gandiva's grow-shrink (Xiao et al., OSDI'18, sec. 4.3): when devices sit idle and nothing
// waits, elastic jobs (min_workers < max_workers in the trace) grow onto them; as soon as jobs
// wait, grown jobs shrink back to the workers they asked for. Each resize costs costs.resize_s.
#pragma once

#include "policies/gandiva/state.h"
#include "sim/runtime/control.h"

namespace dlsim::gandiva {

// Grows running elastic jobs that are alone in their group onto free devices (their own
// nodes first), up to max_workers, oldest group first.
void grow(Control& control, State& st);
// Shrinks every grown job back to its requested workers, on the devices it started with.
void shrink_grown(Control& control, State& st);

} // namespace dlsim::gandiva
