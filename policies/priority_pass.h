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
  // Chooses the jobs that should hold devices, walking them best first.
  // - Capacity: a job is chosen when its device type still has that many devices, counting
  //   every device once, busy or not (so a better job may claim a worse running one's devices).
  //   A running job counts only against the type it runs on. A job that does not fit is skipped
  //   and a later, smaller one may take what is left (work-conserving, as in the Tiresias
  //   simulator's 2D-LAS loop).
  // - Placement: a waiting job is chosen only if its workers find nodes, as consolidated
  //   placement would, among the free devices the better jobs left, or else (when `preempt`)
  //   among those plus the devices of running jobs not reached yet in the walk, choosing the
  //   nodes that need the fewest of those. A job that cannot be placed even then uses no
  //   capacity, so that no job is preempted for one that cannot start.
  // - A running job is kept if the capacity still holds it and the better waiting jobs were not
  //   given its devices. Otherwise apply() preempts it, and its devices count as free for the
  //   jobs after it in the walk.
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

// The free devices, CPUs and memory of every node as a decision unfolds: the runtime's free
// state plus a sparse difference, and a pool of the devices that running jobs would give back if
// preempted ("held"). A reservation may dip into the pool; the running jobs on that node that
// are visited last then give it back.
class FreeModel {
public:
  explicit FreeModel(const View& view) : view_(view) {}
  // Job j's current devices, CPUs and memory become free.
  void release(JobId j);
  // Job j's devices, CPUs and memory join the pool.
  void hold(JobId j);
  // Takes j out of the pool; true when it can keep its devices, false when reservations need
  // some of them (it must be preempted, and release(j) makes them free).
  bool unhold_and_keep(JobId j);
  // Reserves j's workers on the nodes consolidated placement would pick (one node by best fit,
  // else the nodes with most free devices first), on free devices or, with `with_held`, also
  // on pooled ones (fewest pooled devices first); false, and nothing reserved, if they do not
  // fit.
  bool take(JobId j, bool with_held);

private:
  struct NodeDelta {
    double cpu = 0, mem = 0; // change to the node's free CPUs and memory
    double held_cpu = 0, held_mem = 0;
  };
  using Key = std::pair<NodeId, DeviceTypeId>;
  void add(JobId j, int sign, bool to_pool);
  [[nodiscard]] std::int64_t free_dev(NodeId n, DeviceTypeId t) const;
  [[nodiscard]] std::int64_t held_dev(NodeId n, DeviceTypeId t) const;
  [[nodiscard]] double free_cpu(NodeId n) const;
  [[nodiscard]] double free_mem(NodeId n) const;
  [[nodiscard]] std::uint32_t fit(const JobRequest& r, NodeId n, DeviceTypeId t,
                                  bool with_held) const;

  const View& view_;
  std::map<Key, std::int64_t> dfree_, held_;
  std::map<NodeId, NodeDelta> nodes_;
};

// Device-seconds a job has run so far (Tiresias' attained service), including the part of the
// current run that the runtime has not settled yet.
double attained_now(const View& view, JobId j);
// Seconds a job has spent running so far, likewise up to date.
double run_time_now(const View& view, JobId j);
// True for a job that holds devices and is (or is about to be) making progress.
bool is_holder(const JobState& s);

} // namespace dlsim
