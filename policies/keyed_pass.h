// The keyed preemptive pass shared by srtf, shortest-gpu-time with preemptive: true (SRSF) and
// las: every unfinished job has a key that moves while it runs; at each decision the holders are
// brought into the order of their keys now (MovingOrder: only the keys whose order could have
// changed are computed), the PriorityPass (priority_pass.h) walks the jobs by increasing key
// (the holders and the waiting jobs merged), and the jobs it suspended are keyed where they
// stopped.
#pragma once

#include "policies/moving_order.h"
#include "policies/priority_pass.h"
#include "policies/waiting_index.h"
#include "sim/runtime/policy.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

using PassKeyOf = std::function<PassKey(const View& view, JobId j)>;
// How a holder's key moves until the runtime next changes the job (KeyMotion).
using KeyMotionOf = std::function<KeyMotion(const View& view, JobId j)>;

class KeyedPass {
public:
  KeyedPass(PassKeyOf key_of, KeyMotionOf motion_of)
      : key_of_(std::move(key_of)), motion_of_(std::move(motion_of)) {}

  void arrive(const View& view, JobId j);
  void finish(const View& view, JobId j);
  // Runs between the choice and its application: heterogeneity-aware policies set the chosen
  // waiting jobs' device types there (PriorityPass::prefer_types).
  using BeforeApply = std::function<void(const View& view, PriorityPass& pass)>;

  // One decision: sort the holders by their keys now, choose and apply (PriorityPass::decide and
  // apply, with `preempt`), then key the jobs that were suspended where they stopped.
  void decide(Control& control, Placement placement, bool preempt = true,
              const BeforeApply& before_apply = {});
  // Some arrived, unfinished job holds no devices of this policy.
  [[nodiscard]] bool someone_waits() const { return !waiting_.empty(); }

private:
  // The holders in the order of their keys now.
  void sort_holders(const View& view);
  // The first holder of [from, last) (sorted) whose key is not below w.
  std::span<const JobId>::iterator first_not_below(std::span<const JobId>::iterator from,
                                                   std::span<const JobId>::iterator last,
                                                   const PassKey& w);

  PassKeyOf key_of_;
  KeyMotionOf motion_of_;
  PriorityPass pass_;                  // its buffers are reused from one decision to the next
  std::vector<PassKey> keys_;          // [job] a waiting job's key (the one in waiting_)
  std::vector<std::uint32_t> devices_; // [job] the devices it asks for
  // The waiting jobs by their keys: a job that holds no devices makes no progress, so its key
  // stays the one it had when it stopped (or arrived).
  WaitingIndex<PassKey, JobShape> waiting_;
  std::vector<std::uint32_t> class_; // [job] its shape's number in waiting_
  // The holders (started or resumed by this policy) by their keys, as of the last decision that
  // walked them; the jobs started or finished since join or leave at the next one. The pass
  // keeps the holders between two waiting jobs together (WalkItem::run, with the prefix sums of
  // their devices).
  MovingOrder held_;
  std::uint64_t stamp_ = 0;         // View::changes().jobs.stamp() when held_ was last sorted
  std::vector<JobId> host_waiting_; // host tasks not yet started (kept out of the pass)
  HolderSet holders_;               // the jobs of held_, for PriorityPass
  std::uint64_t demand_ = 0;        // devices asked for by the waiting jobs and the holders
};

// A policy that is a keyed pass and nothing else, deciding at every call (srtf, SRSF).
std::unique_ptr<Policy> make_keyed_pass_policy(Placement placement, PassKeyOf key_of,
                                               KeyMotionOf motion_of);

} // namespace dlsim
