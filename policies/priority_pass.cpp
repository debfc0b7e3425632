#include "policies/priority_pass.h"

namespace dlsim {

PriorityPass::PriorityPass(const View& view) {
  for (const Device& d : view.cluster().devices) {
    ++budget_[d.type];
    ++left_;
  }
}

bool PriorityPass::offer(const View& view, JobId j) {
  const std::uint32_t need = view.request(j).devices();
  const JobState& st = view.state(j);
  const bool holds = is_holder(st);
  for (DeviceTypeId t : view.compatible_types(j)) {
    if (holds && t != st.type) continue; // a running job counts against the type it runs on
    auto it = budget_.find(t);
    if (it == budget_.end() || it->second < need) continue;
    it->second -= need;
    left_ -= need;
    chosen_.push_back(j);
    return true;
  }
  return false;
}

void PriorityPass::apply(Control& control, Placement placement, std::set<JobId>& holders,
                         bool preempt_others) {
  std::set<JobId> keep(chosen_.begin(), chosen_.end());
  std::vector<JobId> preempt;
  for (JobId j : holders) {
    if (preempt_others && !keep.count(j)) preempt.push_back(j);
  }
  for (JobId j : preempt) {
    control.suspend(j);
    holders.erase(j);
  }
  for (JobId j : chosen_) {
    JobStatus s = control.state(j).status;
    if (s != JobStatus::kPending && s != JobStatus::kSuspended) continue;
    auto devices = place(control, j, placement);
    if (!devices) continue; // devices still being released, or fragmented: next decision
    if (s == JobStatus::kPending)
      control.start(j, *devices);
    else
      control.resume(j, *devices);
    holders.insert(j);
  }
}

bool is_holder(const JobState& s) {
  return s.status == JobStatus::kRunning || s.status == JobStatus::kStarting;
}

double attained_now(const View& view, JobId j) {
  const JobState& s = view.state(j);
  double a = s.attained;
  if (s.status == JobStatus::kRunning && view.now() > s.last_update) {
    a += static_cast<double>(s.devices.size()) * to_seconds(view.now() - s.last_update);
  }
  return a;
}

double run_time_now(const View& view, JobId j) {
  const JobState& s = view.state(j);
  SimTime t = s.run_time;
  if (s.status == JobStatus::kRunning && view.now() > s.last_update)
    t += view.now() - s.last_update;
  return to_seconds(t);
}

} // namespace dlsim
