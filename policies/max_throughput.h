// Gavel's max_sum_throughput in spirit (Narayanan et al., OSDI'20, section 4.1 "Maximize total
// throughput"): at every decision the free devices go to the waiting jobs, and the jobs to the
// device types, that maximise the cluster's summed normalized throughput (policies/type_choice.h).
// Non-preemptive; `window` bounds how many waiting jobs, oldest first, a decision considers.
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry max_throughput_policy();

} // namespace dlsim
