// gpu-share: the multi-tenant GPU controller's scheduler (gpu_share.cpp, docs/policies.md).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry gpu_share_policy();

} // namespace dlsim
