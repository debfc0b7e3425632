// The keyed preemptive pass shared by srtf, shortest-gpu-time with preemptive: true (SRSF) and
// las: every unfinished job has a key that moves while it runs; at each decision the holders are
// rekeyed, the PriorityPass (priority_pass.h) walks the jobs by increasing key, and the jobs it
// suspended or started are rekeyed where they stopped or started.
#pragma once

#include "policies/priority_pass.h"
#include "sim/runtime/policy.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

// (value, tie-break, job id): lower goes first.
using PassKey = std::tuple<double, std::uint8_t, JobId>;
using PassKeyOf = std::function<PassKey(const View& view, JobId j)>;

class KeyedPass {
public:
  explicit KeyedPass(PassKeyOf key_of) : key_of_(std::move(key_of)) {}

  void arrive(const View& view, JobId j);
  void finish(const View& view, JobId j);
  // Runs between the choice and its application: heterogeneity-aware policies set the chosen
  // waiting jobs' device types there (PriorityPass::prefer_types).
  using BeforeApply = std::function<void(const View& view, PriorityPass& pass)>;

  // One decision: rekey the holders, choose and apply (PriorityPass::decide and apply, with
  // `preempt`), then rekey the jobs that were suspended or started.
  void decide(Control& control, Placement placement, bool preempt = true,
              const BeforeApply& before_apply = {});
  // Some arrived, unfinished job holds no devices of this policy.
  [[nodiscard]] bool someone_waits() const { return order_.size() > holders_.size(); }

private:
  // Moves j to its current key in order_, and into (waits) or out of waiting_.
  void rekey(const View& view, JobId j, bool waits);

  PassKeyOf key_of_;
  PriorityPass pass_;         // its buffers are reused from one decision to the next
  std::vector<PassKey> keys_; // [job] its key in order_ (and in waiting_ while it waits)
  std::vector<std::set<PassKey>::iterator> pos_; // [job] its node in order_
  std::vector<char> waits_;                      // [job] in waiting_
  // Every arrived, unfinished job, lowest key first. The holders' keys in it are brought up to
  // date only when a decision walks them: a key is a function of the current state, so moving
  // it late gives the order moving it at every decision would.
  std::set<PassKey> order_;
  std::set<PassKey> waiting_;       // the jobs of order_ that are not holders, by the same keys
  std::vector<JobId> host_waiting_; // host tasks not yet started (kept out of the pass)
  std::set<JobId> holders_;         // started or resumed by this policy
  std::uint64_t demand_ = 0;        // devices asked for by the jobs of order_
};

// A policy that is a keyed pass and nothing else, deciding at every call (srtf, SRSF).
std::unique_ptr<Policy> make_keyed_pass_policy(Placement placement, PassKeyOf key_of);

} // namespace dlsim
