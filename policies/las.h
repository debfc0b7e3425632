#pragma once
#include "policies/registry.h"
#include <memory>
namespace dlsim {
// Reads `interval_s` (>= 0); InputError naming the key otherwise.
double las_interval(const PolicyParams& params);
// interval_s: seconds between the rounds at which running jobs may be preempted (0 = at every
// arrival, finish and completed action).
std::unique_ptr<Policy> make_las(Placement placement, double interval_s);
} // namespace dlsim
