// Elastic-KubeFlow (seed nthu-intelligent-system-for-ai, slides 13-14) as DRAGON schedules it
// (NTHU-LSALAB/DRAGON, scheduling.go): scale down for a starving head job, start jobs on one
// node or spread from the roomiest, grow jobs when nothing happened for a while (see the .cpp).
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry elastic_kubeflow_policy();

} // namespace dlsim
