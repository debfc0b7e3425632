// Dominant resource fairness (drf.cpp).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry drf_policy();

} // namespace dlsim
