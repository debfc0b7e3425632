// The worked example of docs/adding-a-policy.md (toy_policy.cpp).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry smallest_first_policy();

} // namespace dlsim
