// Shortest job first: the waiting job with the shortest true duration starts next; no
// preemption, and a job that does not fit blocks longer ones (an oracle baseline, as in
// Tiresias, Gu et al., NSDI'19, section 6.1). Ties go to the earlier job.
#include "policies/sjf.h"

#include "policies/strict_order.h"

namespace dlsim {

PolicyEntry sjf_policy() {
  PolicyEntry entry{
      "sjf",
      "shortest job first (oracle: reads true durations); non-preemptive, strict order",
      true,
      {},
      [](const PolicySetup& s) {
        return make_strict_order(s.placement,
                                 [](const View& view, JobId j) { return view.oracle_total_s(j); });
      }};
  // A failed job is handed back through on_arrival (Policy::on_failure) and placed from the
  // free devices, which never include a failed one.
  entry.handles_failures = true;
  return entry;
}

} // namespace dlsim
