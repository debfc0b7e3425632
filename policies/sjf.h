// Shortest job first, an oracle baseline (sjf.cpp).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry sjf_policy();

} // namespace dlsim
