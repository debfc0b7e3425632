// Shortest GPU time first (an oracle baseline): a job's size is its true duration times the
// devices it requests, so a short job on many GPUs no longer counts as small. Non-preemptive and
// in strict order by default, like `sjf`; with `preemptive: true` it orders by remaining GPU time
// and suspends larger running jobs, which is the SRSF baseline of Tiresias (Gu et al., NSDI'19,
// section 6.1: "shortest-remaining-service-first").
#include "policies/shortest_gpu_time.h"

#include "policies/key_motions.h"
#include "policies/keyed_pass.h"
#include "policies/strict_order.h"

namespace dlsim {

namespace {

double gpu_time(const View& view, JobId j, bool remaining) {
  double s = remaining ? view.oracle_remaining_s(j) : view.oracle_total_s(j);
  return s * static_cast<double>(view.request(j).devices());
}

std::unique_ptr<Policy> make(const PolicySetup& s) {
  if (s.params.flag("preemptive")) {
    // (remaining GPU-seconds, -, id): ties go to the earlier job.
    return make_keyed_pass_policy(
        s.placement,
        [](const View& view, JobId j) {
          return PassKey{gpu_time(view, j, true), 0, j};
        },
        [](const View& view, JobId j) {
          return remaining_motion(view, j, static_cast<double>(view.request(j).devices()));
        });
  }
  // Strict order by total GPU-seconds: the smallest waiting job blocks the larger ones.
  return make_strict_order(s.placement,
                           [](const View& view, JobId j) { return gpu_time(view, j, false); });
}

} // namespace

PolicyEntry shortest_gpu_time_policy() {
  return {"shortest-gpu-time",
          "shortest GPU time (duration x GPUs) first (oracle); non-preemptive and strict, or SRSF "
          "with preemptive: true",
          true,
          {{"preemptive", ParamType::kFlag, "false",
            "order by remaining GPU time and suspend larger running jobs (SRSF)"}},
          make};
}

} // namespace dlsim
