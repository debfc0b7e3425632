// The kube-batch / Volcano batch scheduler as a dlsim policy (registered as `kube-batch` and
// `volcano`). Sources: kubernetes-sigs/kube-batch and volcano-sh/volcano, pkg/scheduler/
// (framework/, actions/, plugins/, conf/); docs/policies.md maps them onto dlsim.
#pragma once

#include "policies/registry.h"

#include <string>

namespace dlsim {

// The entry under `name`: kube-batch, or volcano (the same policy, parameters and defaults).
PolicyEntry kube_batch_policy(const std::string& name);

} // namespace dlsim
