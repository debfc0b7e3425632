// Dominant resource fairness (Ghodsi et al., "Dominant Resource Fairness: Fair Allocation of
// Multiple Resource Types", NSDI'11, section 4, Algorithm 1): a user's dominant share is the
// largest of its shares of the cluster's devices, host CPUs and host memory; the next job to
// start is the oldest waiting job of the user with the smallest dominant share. Non-preemptive,
// as the paper's progressive filling. Where the paper stops when the chosen user's task does not
// fit, this version passes over that user until the next decision and keeps filling with the
// others, so that one large job does not idle the cluster.
#include "policies/drf.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <set>
#include <utility>
#include <vector>

namespace dlsim {

namespace {

class Drf final : public Policy {
public:
  Drf(Placement placement, bool by_queue) : placement_(placement), by_queue_(by_queue) {}

  void on_arrival(JobId j, const View& view) override {
    if (totals_[0] < 0) init_totals(view);
    std::uint32_t u = owner(view, j);
    if (users_.size() <= u) users_.resize(u + 1);
    users_[u].waiting.push_back(j);
  }

  void on_finish(JobId j, const View& view) override {
    if (!started_.erase(j)) return;
    add_usage(view, j, -1.0);
  }

  // A failed job holds nothing: its usage is given back and it waits again, at its user's back.
  void on_failure(JobId j, const View& view) override {
    if (started_.erase(j)) add_usage(view, j, -1.0);
    on_arrival(j, view);
  }

  void schedule(Control& control) override {
    // Progressive filling: (dominant share, user), smallest first; ties to the lower user index
    // (users are numbered in order of first appearance in the trace).
    std::set<std::pair<double, std::uint32_t>> ready;
    for (std::uint32_t u = 0; u < users_.size(); ++u) {
      if (!users_[u].waiting.empty()) ready.emplace(dominant_share(u), u);
    }
    while (!ready.empty()) {
      std::uint32_t u = ready.begin()->second;
      ready.erase(ready.begin());
      User& user = users_[u];
      JobId j = user.waiting.front();
      auto devices = place(control, j, placement_);
      if (!devices) continue; // this user's oldest job does not fit: pass over the user
      control.start(j, *devices);
      started_.insert(j);
      user.waiting.pop_front();
      add_usage(control, j, +1.0);
      if (!user.waiting.empty()) ready.emplace(dominant_share(u), u);
    }
  }

private:
  struct User {
    std::deque<JobId> waiting;  // submission order
    double used[3] = {0, 0, 0}; // devices, CPUs, memory GB held by its running jobs
  };

  std::uint32_t owner(const View& view, JobId j) const {
    return by_queue_ ? view.request(j).queue : view.request(j).user;
  }

  void init_totals(const View& view) {
    totals_[0] = static_cast<double>(view.cluster().devices.size());
    totals_[1] = 0;
    totals_[2] = 0;
    for (const Node& n : view.cluster().nodes) {
      totals_[1] += n.cpu_cores;
      totals_[2] += n.memory_gb;
    }
  }

  void add_usage(const View& view, JobId j, double sign) {
    const JobRequest& r = view.request(j);
    const RequestDetails& rd = view.details(j);
    // The request, not the allocation: an elastic job started with fewer workers is rare here,
    // and the request is what was added when it started.
    const double workers = r.workers;
    User& user = users_[owner(view, j)];
    user.used[0] += sign * static_cast<double>(r.devices());
    user.used[1] += sign * workers * rd.cpus_per_worker;
    user.used[2] += sign * workers * rd.mem_gb_per_worker;
  }

  [[nodiscard]] double dominant_share(std::uint32_t u) const {
    double share = 0;
    for (int k = 0; k < 3; ++k) {
      if (totals_[k] > 0) share = std::max(share, users_[u].used[k] / totals_[k]);
    }
    return share;
  }

  Placement placement_;
  bool by_queue_;
  double totals_[3] = {-1, 0, 0};
  std::vector<User> users_;
  std::set<JobId> started_;
};

} // namespace

PolicyEntry drf_policy() {
  PolicyEntry entry{
      "drf",
      "dominant resource fairness over devices, CPUs and memory: the user with the smallest "
      "dominant share starts its oldest job next; non-preemptive",
      false,
      {{"group_by",
        ParamType::kText,
        "user",
        "whose shares are equalized: user or queue (the trace's virtual cluster)",
        {.choices = {"user", "queue"}}}},
      [](const PolicySetup& s) {
        return std::make_unique<Drf>(s.placement,
                                     /*by_queue=*/s.params.text("group_by") == "queue");
      }};
  // A failed job gives its usage back and rejoins its user's queue (on_failure).
  entry.handles_failures = true;
  return entry;
}

} // namespace dlsim
