// One decision of a preemptive priority policy (Tiresias, LAS, SRSF): walk the jobs best first,
// give each the devices the cluster's capacity still holds, suspend the running jobs that did not
// make the cut, then start or resume the chosen waiting jobs, best first.
#pragma once

#include "policies/placement.h"
#include "sim/runtime/control.h"

#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace dlsim {

// Capacity bookkeeping for one decision. Counting whole devices per type, not free ones, is what
// lets a better job claim the devices of a worse running one (which is then suspended). A job
// that does not fit is skipped and a later, smaller one may take what is left (work-conserving,
// as in the Tiresias simulator's 2D-LAS loop).
class PriorityPass {
public:
  explicit PriorityPass(const View& view);

  // Offers the next job in priority order; true when it gets a share of the capacity.
  bool offer(const View& view, JobId j);
  // Nothing left to give: the rest of the order cannot run.
  [[nodiscard]] bool exhausted() const { return left_ == 0; }
  [[nodiscard]] const std::vector<JobId>& chosen() const { return chosen_; }

  // Suspends every job of `holders` (running or paying a start) that was not chosen, then starts
  // or resumes the chosen waiting jobs in order. A chosen job whose devices are still being
  // released by a suspending job waits: the policy is called again when that action completes.
  // With preempt = false nothing is suspended and the chosen jobs take only free devices.
  // Updates `holders` (jobs started or resumed are added, jobs suspended removed).
  void apply(Control& control, Placement placement, std::set<JobId>& holders, bool preempt = true);

private:
  std::map<DeviceTypeId, std::uint32_t> budget_;
  std::uint64_t left_ = 0;
  std::vector<JobId> chosen_;
};

// Device-seconds a job has run so far (Tiresias' attained service), including the part of the
// current run that the runtime has not settled yet.
double attained_now(const View& view, JobId j);
// Seconds a job has spent running so far, likewise up to date.
double run_time_now(const View& view, JobId j);
// True for a job that holds devices and is (or is about to be) making progress.
bool is_holder(const JobState& s);

} // namespace dlsim
