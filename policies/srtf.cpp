// Shortest remaining time first, preemptive (an oracle baseline; Tiresias, Gu et al., NSDI'19,
// section 6.1): at every decision the jobs with the least true remaining time get the devices,
// and running jobs outside that set are suspended to make room. The decision is the shared
// keyed pass (keyed_pass.h, as for las and SRSF): a waiting job that its nodes could not hold
// even after the worse jobs leave is left out, so no job is suspended for one that cannot start.
#include "policies/srtf.h"

#include "policies/key_motions.h"
#include "policies/keyed_pass.h"

namespace dlsim {

PolicyEntry srtf_policy() {
  return {"srtf",
          "shortest remaining time first (oracle); preempts longer jobs for shorter ones",
          true,
          {},
          [](const PolicySetup& s) {
            // (true remaining s, -, id): ties go to the earlier job.
            return make_keyed_pass_policy(
                s.placement,
                [](const View& view, JobId j) {
                  return PassKey{view.oracle_remaining_s(j), 0, j};
                },
                [](const View& view, JobId j) { return remaining_motion(view, j, 1); });
          }};
}

} // namespace dlsim
