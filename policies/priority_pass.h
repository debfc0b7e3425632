// One decision of a preemptive priority policy (Tiresias, LAS, SRSF): walk the jobs best first,
// give each the devices the cluster's capacity still holds, check that the chosen waiting jobs
// can be placed, suspend the running jobs that did not make the cut, then start or resume the
// chosen waiting jobs, best first.
#pragma once

#include "policies/placement.h"
#include "sim/runtime/control.h"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace dlsim {

// A policy's jobs, best first: calls offer(j) for each until offer returns false.
using PriorityWalk = std::function<void(const std::function<bool(JobId)>& offer)>;

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
  void decide(const View& view, const PriorityWalk& walk, const std::set<JobId>& holders,
              bool preempt = true);
  [[nodiscard]] const std::vector<JobId>& chosen() const { return chosen_; }

  // Suspends every job of `holders` (running or paying a start) that was not chosen, then starts
  // or resumes the chosen waiting jobs in order. A chosen job whose devices are still being
  // released by a suspending job waits: the policy is called again when that action completes.
  // With preempt = false nothing is suspended and the chosen jobs take only free devices.
  // Updates `holders` (jobs started or resumed are added, jobs suspended removed).
  void apply(Control& control, Placement placement, std::set<JobId>& holders, bool preempt = true);

private:
  std::vector<JobId> chosen_;
};

// The free devices, CPUs and memory of every node as they will be once some jobs release
// theirs and others take some: the runtime's free state plus a sparse difference.
class FreeModel {
public:
  explicit FreeModel(const View& view) : view_(view) {}
  // Job j's current devices, CPUs and memory become free.
  void release(JobId j);
  // Reserves j's workers on the nodes consolidated placement would pick (one node by best fit,
  // else the nodes with most free devices first); false, and nothing reserved, if they do not
  // fit.
  bool take(JobId j);

private:
  using Key = std::pair<NodeId, DeviceTypeId>;
  [[nodiscard]] std::int64_t free_dev(NodeId n, DeviceTypeId t) const;
  [[nodiscard]] std::int64_t total_dev(DeviceTypeId t) const;
  [[nodiscard]] std::uint32_t fit(const JobRequest& r, NodeId n, DeviceTypeId t) const;

  const View& view_;
  std::map<Key, std::int64_t> dfree_;
  std::map<DeviceTypeId, std::int64_t> dfree_sum_;    // the same, per type
  std::map<NodeId, std::pair<double, double>> dnode_; // change to free CPUs, memory
};

// Device-seconds a job has run so far (Tiresias' attained service), including the part of the
// current run that the runtime has not settled yet.
double attained_now(const View& view, JobId j);
// Seconds a job has spent running so far, likewise up to date.
double run_time_now(const View& view, JobId j);
// True for a job that holds devices and is (or is about to be) making progress.
bool is_holder(const JobState& s);

} // namespace dlsim
