// Hyper-parameter search sessions on top of any scheduler (policy `automl`): the search's own
// controller, the way an AutoML tool drives its trials (Gandiva, Xiao et al., OSDI'18, sec. 2;
// successive halving, Jamieson and Talwalkar, AISTATS'16). It kills the worst trials at each
// rung and stops the session once a trial reaches the target; the wrapped scheduler places
// everything. docs/gandiva.md describes the model.
#pragma once

#include "policies/registry.h"
#include "workloads/hyperparam_search.h"

#include <memory>
#include <vector>

namespace dlsim {

// Wraps `inner`: every notification is passed on; at each decision the controller acts first
// (cancels), then the inner policy schedules. A cancelled job is reported to the inner policy
// through on_finish. A trial that must die while still pending is cancelled as soon as the
// inner policy starts it, so that policies which only track pending jobs in their own queues
// never see a job vanish from under them.
std::unique_ptr<Policy> make_search_sessions(std::unique_ptr<Policy> inner,
                                             std::vector<SearchSession> sessions);

// The `automl` entry: reads `sessions`, `scheduler` and `scheduler_params`.
PolicyEntry automl_policy();

} // namespace dlsim
