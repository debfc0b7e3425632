#include "policies/max_throughput.h"

#include "policies/type_choice.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <cmath>
#include <list>

namespace dlsim {

namespace {

class MaxThroughput final : public Policy {
public:
  MaxThroughput(Placement placement, std::size_t window) : placement_(placement), window_(window) {}

  void on_arrival(JobId j, const View&) override {
    if (queue_.size() < window_) window_changed_ = true;
    queue_.push_back(j);
  }

  void schedule(Control& control) override {
    if (queue_.empty()) return;
    // A decision depends only on the window's jobs and on the nodes' free resources: one that
    // started nothing would start nothing again while neither changed (the arrivals behind a
    // full window, about half the decisions under a standing queue).
    const std::uint64_t stamp = control.changes().nodes.stamp();
    if (idle_ && !window_changed_ && stamp == idle_stamp_) return;
    idle_ = false;
    const std::size_t types = control.cluster().types.size();
    std::vector<std::uint32_t>& free = free_;
    free.assign(types, 0);
    std::uint64_t free_total = 0;
    for (DeviceTypeId t = 0; t < types; ++t) {
      free[t] = control.free().free(t);
      free_total += free[t];
    }
    if (free_total == 0) return;
    std::vector<std::list<JobId>::iterator>& where = where_;
    std::vector<JobId>& jobs = jobs_;
    where.clear();
    jobs.clear();
    // The window: the oldest waiting jobs. Those that fit no type's free devices would get no
    // type (fits_some_type): they are left out of the problem.
    std::size_t in_window = 0;
    for (auto it = queue_.begin(); it != queue_.end() && in_window < window_; ++it, ++in_window) {
      if (!fits_some_type(control, *it, free)) continue;
      where.push_back(it);
      jobs.push_back(*it);
    }
    bool started = false;
    fill_type_choice_problem(control, jobs, free, problem_);
    std::vector<std::int32_t> at = choose_types(problem_, /*select=*/true);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (at[i] == kNoType) continue;
      const JobId j = jobs[i];
      auto devices = place_on_type(control, j, placement_, control.request(j).workers,
                                   static_cast<DeviceTypeId>(at[i]));
      if (!devices) devices = place(control, j, placement_); // nodes too fragmented for that type
      if (!devices) continue;
      control.start(j, *devices);
      queue_.erase(where[i]);
      started = true;
    }
    idle_ = !started;
    idle_stamp_ = stamp;
    window_changed_ = false;
  }

private:
  Placement placement_;
  std::size_t window_;
  std::list<JobId> queue_; // waiting jobs in arrival order
  // The last decision started nothing (idle_), the node log's stamp it saw, and whether a job
  // joined the window since.
  bool idle_ = false;
  std::uint64_t idle_stamp_ = 0;
  bool window_changed_ = false;
  // One decision's free devices per type, window, and problem: kept between decisions so that
  // the frequent small ones under a standing queue do not allocate them each time.
  std::vector<std::uint32_t> free_;
  std::vector<std::list<JobId>::iterator> where_;
  std::vector<JobId> jobs_;
  TypeChoiceProblem problem_;
};

} // namespace

PolicyEntry max_throughput_policy() {
  PolicyEntry entry{
      "max-throughput",
      "heterogeneity-aware (Gavel's max_sum_throughput): free devices go to the waiting jobs "
      "and types that maximise summed normalized throughput; non-preemptive",
      false,
      {{"window",
        ParamType::kNumber,
        "256",
        "waiting jobs, oldest first, that one decision considers",
        {.min = 1, .max = 1e6, .whole = true}}},
      [](const PolicySetup& s) {
        return std::make_unique<MaxThroughput>(s.placement,
                                               static_cast<std::size_t>(s.params.number("window")));
      }};
  // A failed job rejoins the queue through on_arrival; the free devices it counts and places on
  // never include a failed one.
  entry.handles_failures = true;
  return entry;
}

} // namespace dlsim
