// The kube-batch / Volcano batch scheduler as a dlsim policy (registered as `kube-batch` and
// `volcano`). Sources: kubernetes-sigs/kube-batch and volcano-sh/volcano, pkg/scheduler/
// (framework/, actions/, plugins/, conf/); docs/policies.md maps them onto dlsim.
#pragma once

#include "policies/registry.h"

#include <memory>
#include <vector>

namespace dlsim {

// actions, tiers and queues, with kube-batch's default configuration (pkg/scheduler/util.go).
std::vector<ParamSpec> kube_batch_params();
std::unique_ptr<Policy> make_kube_batch(const PolicyParams& params);

} // namespace dlsim
