// Kubernetes' default scheduler applied to distributed training jobs: pods one at a time, no
// gang (see k8s_default.cpp).
#pragma once

#include "policies/registry.h"

#include <memory>

namespace dlsim {

struct K8sDefaultOptions {
  double pod_interval_s = 0.1; // between the creation of consecutive pods of one job
  bool most_allocated = false; // NodeResourcesFit scoring: MostAllocated instead of LeastAllocated
};

K8sDefaultOptions k8s_default_options(const PolicyParams& params);
std::unique_ptr<Policy> make_k8s_default(const K8sDefaultOptions& options);

} // namespace dlsim
