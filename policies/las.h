#pragma once
#include "policies/registry.h"
#include <memory>
namespace dlsim {
// Reads `interval_s` (>= 0); InputError naming the key otherwise.
double las_interval(const PolicyParams& params);
// interval_s: seconds between re-evaluations while jobs wait (0 = only at arrivals and finishes).
std::unique_ptr<Policy> make_las(Placement placement, double interval_s);
} // namespace dlsim
