// FIFO that holds spare nodes back and restarts a failed gang on them at once (hot_spares.cpp).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry hot_spares_policy();

} // namespace dlsim
