// One decision of a preemptive priority policy (Tiresias, LAS, SRSF): walk the jobs best first,
// give each the devices the cluster's capacity still holds, check that the chosen waiting jobs
// can be placed, suspend the running jobs that did not make the cut, then start or resume the
// chosen waiting jobs, best first.
#pragma once

#include "policies/chosen_jobs.h"
#include "policies/free_model.h"
#include "policies/holder_set.h"
#include "policies/placement.h"
#include "sim/runtime/control.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

namespace dlsim {

// What a walk hands PriorityPass::decide next: one job, or (run not empty) a run of jobs that
// come one after another in the walk's order and are all in the decision's holders, with their
// requested devices summed. A decision whose holders all run on the cluster's one device type
// keeps a run whole when its type has the devices left, without reading each job; else it
// takes the run's jobs one by one, as if the walk had handed them so.
//
// run_prefix, when not empty, is the run's devices as prefix sums (run.size() + 1 entries, from
// the first job's start): the pass reads what each job of a run asks for there, not from the
// runtime's job records.
//
// max_need and pass are set by PriorityPass::decide before each call: the walk may pass over
// waiting jobs (not holders) that no round of the decision could give anything, as it would
// leave them out: those that ask for more devices than max_need (step 1's capacity left at any
// later place of the walk, in every round, is at most that), and those of a shape that failed
// placement earlier in the decision (pass->shape_failed: every later job of that shape is left
// out in every later round).
//
// run_whole, when not empty, is one vector that lists every holder the walk hands, in its order,
// each run being a stretch of it (HeldRuns sets it): the pass then finds the holders it leaves
// out between the stretches it chose, without reading every holder.
class PriorityPass;
struct WalkItem {
  JobId job = 0;
  std::span<const JobId> run;
  std::span<const JobId> run_whole;
  std::uint64_t run_devices = 0;
  std::span<const std::uint64_t> run_prefix;
  std::uint64_t max_need = std::numeric_limits<std::uint64_t>::max();
  const PriorityPass* pass = nullptr;
};

// Jobs with the same shape fit the same nodes: (workers, devices per worker, CPUs, memory,
// device type, type set).
using JobShape =
    std::tuple<std::uint32_t, std::uint32_t, double, double, std::int32_t, std::uint16_t>;
JobShape job_shape(const View& view, JobId j);
// The devices a job of that shape asks for.
inline std::uint64_t shape_devices(const JobShape& s) {
  return static_cast<std::uint64_t>(std::get<0>(s)) * std::get<1>(s);
}
// A policy's jobs, best first: each call sets the next job (or run) and returns true, or returns
// false once there is none left. PriorityPass::decide asks for each job once.
using PriorityWalk = std::function<bool(WalkItem& next)>;

class PriorityPass {
public:
  // Chooses the jobs that should hold devices.
  // 1. Capacity: walking the jobs best first, a job is chosen when its device type still has
  //    that many devices, counting every device once, busy or not (so a better job may claim a
  //    worse running one's devices). A running job counts only against the type it runs on. A
  //    job that does not fit is skipped and a later, smaller one may take what is left
  //    (work-conserving, as in the Tiresias simulator's 2D-LAS loop). The running jobs left out
  //    are the ones apply() preempts: always the worst ones.
  // 2. Placement: with their devices released, each chosen waiting job, best first, must find
  //    nodes for its workers as consolidated placement would. When one cannot (the devices are
  //    spread over too many nodes), it and every later waiting job of the same shape are left
  //    out and step 1 runs again, so that no job is preempted for one that cannot start.
  //
  // With holders_kept, the caller knows that every job, holders and waiting ones together, fits
  // the capacity of step 1 (one device type, fewer devices asked for than it has): every holder
  // is chosen and the walk need only offer the waiting jobs, in the same order. chosen() then
  // lists only those, and apply() suspends nothing. The choice is the one the full walk makes.
  void decide(const View& view, const PriorityWalk& walk, const HolderSet& holders,
              bool preempt = true, bool holders_kept = false);
  // The chosen jobs, best first. Runs of holders are kept as spans of the walk's data: read
  // chosen() before the walk's data changes (the policy's updates after apply()).
  [[nodiscard]] const std::vector<JobId>& chosen() const { return chosen_.list(); }
  // During decide(): a waiting job of shape s failed placement in an earlier round, or (without
  // preemption) no job of shape s fits the free devices.
  [[nodiscard]] bool shape_failed(const JobShape& s) const {
    auto it = shape_ids_.find(s);
    return it != shape_ids_.end() &&
           (first_failed_[it->second] != kNoStep ||
            (it->second < unplaceable_.size() && unplaceable_[it->second] == kNever));
  }
  // What a walk may pass over (WalkItem): a waiting job of shape s that asks for more than
  // max_need devices or whose shape failed placement.
  static bool passes_over(const WalkItem& item, const JobShape& s) {
    return shape_devices(s) > item.max_need || (item.pass != nullptr && item.pass->shape_failed(s));
  }

  // `holders` is the set the last decide() was given, unchanged since.
  // Suspends every job of `holders` (running or paying a start) that was not chosen, then starts
  // or resumes the chosen waiting jobs in order. A chosen job whose devices are still being
  // released by a suspending job waits, and so do the chosen jobs after it (started now, they
  // could take the devices the placement check counted on for it): the policy is called again
  // when that action completes.
  // With preempt = false nothing is suspended and the chosen jobs take only free devices.
  // Updates `holders` (jobs started or resumed are added, jobs suspended removed).
  void apply(Control& control, Placement placement, HolderSet& holders, bool preempt = true);
  // What the last apply() did: the jobs it suspended (in id order) and the ones it started or
  // resumed (best first).
  [[nodiscard]] const std::vector<JobId>& suspended() const { return suspended_; }
  [[nodiscard]] const std::vector<JobId>& started() const { return started_; }

  // Whether a decide() without preemption passes over the waiting jobs of a shape the free
  // devices cannot hold (on by default; off, every such job is offered, for the tests that
  // compare both).
  void pass_over_unplaceable(bool on) { pass_over_unplaceable_ = on; }
  // The bound on a decision's rounds (at least 1; 8 unless a test sets another).
  void set_max_rounds(int rounds) { max_rounds_ = std::max(rounds, 1); }

  // Heterogeneity-aware policies: after decide(), the device type each chosen waiting job should
  // get (index-aligned with chosen(); kNoType = the job's first compatible type that fits).
  // apply() tries that type first.
  void prefer_types(std::vector<std::int32_t> types) { preferred_ = std::move(types); }

private:
  class Decision; // one decide()'s rounds (priority_pass.cpp)
  // Flags in mark_ the jobs of chosen_ not flagged yet (the entries from marked_ on).
  void mark_chosen();
  // Clears the flags of the entries of chosen_ from `from` on.
  void unmark_from(std::size_t from);
  // Sets left_out_ to the holders not chosen, in id order (or, with sorted false, in the order
  // the walk's runs list them when it does): between the chosen stretches of whole (the walk's
  // run_whole, when it lists every holder), else by the flags of mark_.
  void list_left_out(const HolderSet& holders, std::span<const JobId> whole, bool sorted = true);

  // A job of the walk: its shape's number in shape_ids_ (kNoShape until a round needs it), the
  // devices it asks for, the type a holder's count against, whether it holds devices and
  // whether step 1 offers it capacity.
  static constexpr std::uint32_t kNoShape = std::numeric_limits<std::uint32_t>::max();
  static constexpr std::uint32_t kNoStep = std::numeric_limits<std::uint32_t>::max();
  struct Step {
    JobId job;
    std::uint32_t shape;
    std::uint32_t need;
    DeviceTypeId own_type;
    bool holds;
    bool offered;
    std::span<const DeviceTypeId> types; // a waiting job's compatible types
    std::span<const JobId> run;          // a run of plain holders (WalkItem), job unused
    std::uint64_t run_devices;
    std::span<const std::uint64_t> run_prefix; // WalkItem::run_prefix
    bool resolved; // holds, offered, own_type and types read (else only job and need)
  };
  // Brings irregular_ up to date with the jobs the runtime changed since the last decision.
  void audit_holders(const View& view, const HolderSet& holders);
  // Holds devices of a type it may use (so step 1 counts it there) and asks for some.
  [[nodiscard]] static bool plain_holder(const View& view, JobId j);
  std::vector<char> irregular_flag_; // [job] a holder that is not plain_holder()
  std::size_t irregular_ = 0;        // jobs flagged in irregular_flag_
  std::size_t chosen_holders_ = 0;   // the jobs of chosen_ that hold devices
  std::uint64_t audit_stamp_ = 0;    // View::changes().jobs.stamp() at the last audit
  bool audited_ = false;
  std::vector<Step> walked_; // the walk so far, in its order
  std::map<JobShape, std::uint32_t> shape_ids_;
  std::vector<std::uint32_t> first_failed_; // [shape] the step of the first waiting job that
                                            // failed, or kNoStep
  std::vector<char> excluded_;              // [shape] left out for the rest of this round's walk
  std::vector<char> failed_;                // [shape] failed placement this round
  ChosenJobs chosen_;
  // The chosen jobs that hold no devices, in order: (position in chosen_, step).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> chosen_waiting_;
  // Before each chosen waiting job of this round: its step, the jobs and the entries of chosen_
  // before it, and the capacity left (Capacity::save).
  struct Saved {
    std::uint32_t step;
    std::uint32_t chosen;
    std::uint32_t picks;
  };
  std::vector<Saved> saved_;
  std::vector<std::uint64_t> saved_capacity_;
  bool holders_kept_ = false; // the last decide() kept every holder without walking them
  std::vector<JobId> suspended_;
  std::vector<JobId> started_;
  // [job] in chosen_, for the first marked_ entries of chosen_: read only where not every holder
  // was chosen and the walk gave no run_whole (the placement check's releases), so flagged only
  // there, and cleared by the end of decide().
  std::vector<char> mark_;
  std::size_t marked_ = 0;
  // The holders not chosen, in id order (list_left_out): the placement check releases them and
  // apply() suspends them. left_out_listed_: left_out_ is that of the current choice.
  std::vector<JobId> left_out_;
  bool left_out_listed_ = false;
  bool left_out_sorted_ = false;
  // The placement check's model, and the holders it releases (left_out_'s that still hold).
  FreeModel model_;
  std::vector<JobId> model_released_;
  // Without preemption: whether each shape fits the free state at all (Decision::unplaceable),
  // and the model that checks it.
  enum Placeable : char { kUnknown, kFits, kNever };
  std::vector<Placeable> unplaceable_; // [shape]
  FreeModel probe_;
  bool pass_over_unplaceable_ = true;
  int max_rounds_ = 8;
  std::vector<std::int32_t> preferred_;
  // Jobs apply() suspended that may still be releasing their devices, and a flag by job id for
  // the ones still suspending at this decide(). Their devices will be free whatever this
  // decision does: the placement check counts them free, or a job preempted for would find
  // them taken, be left out, and a worse job would take the devices the preemption freed (and
  // be preempted in turn at the next decision, for ever).
  std::vector<JobId> releasing_;
  std::vector<char> releasing_now_;
};

// Device-seconds a job has run so far (Tiresias' attained service), including the part of the
// current run that the runtime has not settled yet.
inline double attained_now(const View& view, JobId j) {
  return attained_at(view.state(j), view.now());
}
// Seconds a job has spent running so far, likewise up to date.
inline double run_time_now(const View& view, JobId j) {
  return run_time_at(view.state(j), view.now());
}
// True for a job that holds devices and is (or is about to be) making progress.
bool is_holder(const JobState& s);

// Devices of the cluster's only device type (the catalog lists more types than a cluster
// has), or 0 when it has devices of several types. When the jobs of a pass ask for fewer
// devices than this together, every one of them fits step 1's capacity
// (PriorityPass::decide with holders_kept).
std::uint32_t single_type_devices(const View& view);

} // namespace dlsim
