// Least attained service, continuous and preemptive (las.cpp).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry las_policy();

} // namespace dlsim
