#pragma once
#include "policies/placement.h"
#include "sim/runtime/policy.h"
#include <memory>
namespace dlsim {
// `hetero`: choose each started job's device type by the cluster's summed normalized throughput
// (policies/type_choice.h) instead of the job's fastest free type.
std::unique_ptr<Policy> make_fifo(Placement placement, bool hetero = false);
} // namespace dlsim
