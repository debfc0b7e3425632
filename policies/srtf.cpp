// Shortest remaining time first, preemptive (an oracle baseline; Tiresias, Gu et al., NSDI'19,
// section 6.1): at every decision the jobs with the least true remaining time get the devices,
// and running jobs outside that set are suspended to make room.
#include "policies/srtf.h"

#include <algorithm>
#include <map>
#include <vector>

namespace dlsim {

namespace {

class Srtf final : public Policy {
public:
  explicit Srtf(Placement placement) : placement_(placement) {}

  void on_arrival(JobId j, const View&) override { active_.push_back(j); }
  void on_finish(JobId j, const View&) override {
    active_.erase(std::find(active_.begin(), active_.end(), j));
  }

  void schedule(Control& control) override {
    // 1. Order every unfinished job by remaining time (ties: earlier submission, lower id).
    std::vector<std::pair<double, JobId>> order;
    order.reserve(active_.size());
    for (JobId j : active_) order.emplace_back(control.oracle_remaining_s(j), j);
    std::sort(order.begin(), order.end());

    // 2. Fill each device type's capacity in that order: those jobs should run.
    std::map<DeviceTypeId, std::uint32_t> budget;
    for (const Device& d : control.cluster().devices) ++budget[d.type];
    std::vector<char> should_run(control.job_count(), 0);
    for (auto [remaining, j] : order) {
      std::uint32_t need = control.request(j).devices();
      const JobState& st = control.state(j);
      bool holds = !st.devices.empty();
      for (DeviceTypeId t : control.compatible_types(j)) {
        if (holds && t != st.type) continue;  // a holder counts against its own type
        if (budget[t] >= need) {
          budget[t] -= need;
          should_run[j] = 1;
          break;
        }
      }
    }

    // 3. Preempt running jobs that should not run; 4. start or resume, shortest first.
    for (auto [remaining, j] : order) {
      JobStatus s = control.state(j).status;
      if (!should_run[j] && (s == JobStatus::kRunning || s == JobStatus::kStarting)) control.suspend(j);
    }
    for (auto [remaining, j] : order) {
      JobStatus s = control.state(j).status;
      if (!should_run[j] || (s != JobStatus::kPending && s != JobStatus::kSuspended)) continue;
      auto devices = place(control, j, placement_);
      if (!devices) continue;  // devices still being released: retried when that completes
      if (s == JobStatus::kPending) control.start(j, *devices);
      else control.resume(j, *devices);
    }
  }

private:
  Placement placement_;
  std::vector<JobId> active_;  // arrived and not finished, in arrival order
};

}  // namespace

std::unique_ptr<Policy> make_srtf(Placement placement) { return std::make_unique<Srtf>(placement); }

}  // namespace dlsim
