// Shortest GPU time first, and its preemptive form SRSF (shortest_gpu_time.cpp).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry shortest_gpu_time_policy();

} // namespace dlsim
