// The keyed preemptive pass shared by srtf, shortest-gpu-time with preemptive: true (SRSF) and
// las: every unfinished job has a key that moves while it runs; at each decision the holders are
// rekeyed, the PriorityPass (priority_pass.h) walks the jobs by increasing key (the holders and
// the waiting jobs merged), and the jobs it suspended or started are rekeyed where they stopped
// or started.
#pragma once

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
  [[nodiscard]] bool someone_waits() const { return !waiting_.empty(); }

private:
  // Whether j comes before k in the walk, by their keys as last computed.
  [[nodiscard]] bool before(JobId j, JobId k) const { return keys_[j] < keys_[k]; }
  // The holders' keys brought up to date and held_ sorted by them.
  void rekey_holders(const View& view);
  // held_ without the jobs that finished since they were last walked.
  void drop_stale();
  // held_devices_ from held_.
  void sum_held_devices();

  PassKeyOf key_of_;
  PriorityPass pass_;                  // its buffers are reused from one decision to the next
  std::vector<PassKey> keys_;          // [job] its key (a waiting job's is the one in waiting_)
  std::vector<std::uint32_t> devices_; // [job] the devices it asks for
  // The waiting jobs by their keys: a job that holds no devices makes no progress, so its key
  // stays the one it had when it stopped (or arrived).
  WaitingIndex<PassKey, JobShape> waiting_;
  std::vector<std::uint32_t> class_; // [job] its shape's number in waiting_
  // The holders (started or resumed by this policy), by their keys as of the last decision
  // that walked them, and jobs started since at the end; finished ones stay until the next
  // decision that walks them (a finish costs no search of the vector). Their keys move while they
  // run: a decision that walks them computes them anew and sorts this vector again (mostly in order
  // already, so insertion sort). A key is a function of the current state, so moving it late gives
  // the order moving it at every decision would.
  std::vector<JobId> held_;
  // [i] the devices the first i jobs of held_ ask for, as of the last sort: the pass keeps the
  // holders between two waiting jobs together (WalkItem::run).
  std::vector<std::uint64_t> held_devices_;
  std::vector<char> holding_;          // [job] in holders_ (an entry of held_ without it: stale)
  std::size_t stale_ = 0;              // entries of held_ whose job finished
  std::size_t started_since_sort_ = 0; // entries appended to held_ since it was last sorted
  static constexpr std::size_t kInsertionSortUpTo = 32;
  std::vector<JobId> host_waiting_; // host tasks not yet started (kept out of the pass)
  HolderSet holders_;               // the jobs of held_, for PriorityPass
  std::uint64_t demand_ = 0;        // devices asked for by the waiting jobs and the holders
};

// A policy that is a keyed pass and nothing else, deciding at every call (srtf, SRSF).
std::unique_ptr<Policy> make_keyed_pass_policy(Placement placement, PassKeyOf key_of);

} // namespace dlsim
