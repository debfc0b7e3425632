// Shortest remaining time first, preemptive, an oracle baseline (srtf.cpp).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry srtf_policy();

} // namespace dlsim
