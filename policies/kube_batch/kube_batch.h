// The kube-batch / Volcano batch scheduler as a dlsim policy (registered as `kube-batch` and
// `volcano`). Sources: kubernetes-sigs/kube-batch and volcano-sh/volcano, pkg/scheduler/
// (framework/, actions/, plugins/, conf/); docs/policies.md maps them onto dlsim.
#pragma once

#include "policies/registry.h"

namespace dlsim {

// The entries `kube-batch` and `volcano`: the same policy, parameters and defaults.
PolicyEntry kube_batch_policy();
PolicyEntry volcano_policy();

} // namespace dlsim
