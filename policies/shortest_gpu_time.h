#pragma once
#include "policies/placement.h"
#include "sim/runtime/policy.h"
#include <memory>
namespace dlsim {
// preemptive = false: non-preemptive, by total GPU time; true: by remaining GPU time, preemptive.
std::unique_ptr<Policy> make_shortest_gpu_time(Placement placement, bool preemptive);
} // namespace dlsim
