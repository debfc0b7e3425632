// FIFO with EASY backfilling (fifo_backfill.cpp).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry fifo_backfill_policy();

} // namespace dlsim
