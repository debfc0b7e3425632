// Gandiva's time-slicing with every slice emitted (`exact_slices: true`): in a group of k jobs
// one holds the devices at a time; at the end of its slice it is suspended at a mini-batch
// boundary (costs.suspend_s) and the next in turn is resumed (costs.resume_s). For small
// experiments: it checks the fluid share that the default mode uses (Xiao et al., OSDI'18,
// sec. 4.1: suspend/resume at mini-batch boundaries, 60 s slices).
#pragma once

#include "policies/gandiva/state.h"
#include "sim/runtime/control.h"

namespace dlsim::gandiva {

// Ends slices that are due and starts the next member of every group whose devices are free.
void rotate_slices(Control& control, State& st);
// The earliest slice end still to come, or kNever.
SimTime next_slice_end(const View& view, const State& st);

} // namespace dlsim::gandiva
