// Gandiva's packing and introspection (Xiao et al., OSDI'18, sec. 4.2 and 5.2): two jobs that
// take turns on the same devices are packed to run at once when their memory fits and their GPU
// utilization is low; introspection then compares the measured progress of the pair with what
// time-slicing gave them and unpacks the pair when packing is worse. Only measurements are used:
// time per mini-batch (Control::measured_iteration_s) and the jobs' utilization and memory.
#pragma once

#include "policies/gandiva/state.h"
#include "sim/runtime/control.h"

namespace dlsim::gandiva {

// Records each job's solo rate (iterations/s alone on its requested devices): measured when it
// runs alone, or its time-sliced rate times k / (1 - switch_s/slice_s) when it shares with k-1.
void record_rates(const View& view, State& st);
// Judges every packed pair whose two members are running: keeps it when the sum of their
// normalized rates (rate / solo rate) is at least time-slicing's (1 - switch_s/slice_s), else
// suspends both and returns the group to time-slicing; the pair is never packed again.
void judge_packs(Control& control, State& st);
// Starts pack trials: two-member slice groups whose members both run, have solo rates, fit in
// device memory together and sum to at most pack_util_limit of GPU utilization.
void try_packing(Control& control, State& st);

} // namespace dlsim::gandiva
