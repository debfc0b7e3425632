// Shortest job first: the waiting job with the shortest true duration starts next; no
// preemption, and a job that does not fit blocks longer ones (an oracle baseline, as in
// Tiresias, Gu et al., NSDI'19, section 6.1). Ties go to the earlier job.
#include "policies/sjf.h"

#include "policies/strict_order.h"

namespace dlsim {

PolicyEntry sjf_policy() {
  return {"sjf",
          "shortest job first (oracle: reads true durations); non-preemptive, strict order",
          true,
          {},
          [](const PolicySetup& s) {
            return make_strict_order(
                s.placement, [](const View& view, JobId j) { return view.oracle_total_s(j); });
          }};
}

} // namespace dlsim
