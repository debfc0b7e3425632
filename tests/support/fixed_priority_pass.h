// A test policy on PriorityPass with a fixed random priority per job, using HeldRuns and
// WaitingIndex as tiresias does: the subject of the tests that compare two ways of walking or
// deciding (walk_bound_test, unplaceable_pass_test), which must schedule alike.
#pragma once

#include "tests/support/harness.h"

#include <optional>
#include <string>

namespace dlsim::test {

struct FixedPriorityOptions {
  // Pass over what no round can give (WalkItem::max_need, shape_failed); false: every waiting
  // job offered and every holder of a run handed alone.
  bool bounded = true;
  // Preempt only at rounds every 300 s (as aiturbo does); false: at every decision.
  bool rounds_only = false;
  bool pass_over_unplaceable = true; // PriorityPass::pass_over_unplaceable
  int max_rounds = 8;                // PriorityPass::set_max_rounds
};

// A run's final state, or the message of the error that stopped it.
struct PassOutcome {
  std::optional<RunOutput> out;
  std::string error;
};
PassOutcome run_fixed_priority(const FixedPriorityOptions& o, const Cluster& c, const Workload& w);

} // namespace dlsim::test
