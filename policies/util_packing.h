// util-slot, util-reactive and util-proactive: the three schedulers of Yeung et al., HotCloud'20
// (slide 19) -- one job per GPU, packing by utilization measured after online profiling, and
// packing by utilization predicted from the computation graph -- with the Horus cost rule
// (horus_cost.h). docs/utilization.md, docs/policies.md.
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry util_slot_policy();
PolicyEntry util_reactive_policy();
PolicyEntry util_proactive_policy();

} // namespace dlsim
