// Kubernetes' default scheduler applied to distributed training jobs: pods one at a time, no
// gang (see k8s_default.cpp).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry k8s_default_policy();

} // namespace dlsim
