#pragma once
#include "policies/placement.h"
#include "sim/runtime/policy.h"
#include <memory>
namespace dlsim {
// oracle: estimate run times from the jobs' true durations instead of their requested times.
std::unique_ptr<Policy> make_fifo_backfill(Placement placement, bool oracle);
} // namespace dlsim
