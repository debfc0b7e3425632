#pragma once
#include "policies/placement.h"
#include "sim/runtime/policy.h"
#include <memory>
namespace dlsim {
std::unique_ptr<Policy> make_srtf(Placement placement);
}
