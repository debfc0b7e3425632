// The aiturbo policy and the Optimus-like baseline (docs/aiturbo.md).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry aiturbo_policy();
PolicyEntry optimus_policy();

} // namespace dlsim
