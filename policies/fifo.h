// First in, first out, one queue per device kind (fifo.cpp).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry fifo_policy();

} // namespace dlsim
