// kube-batch / Volcano `drf` plugin (pkg/scheduler/plugins/drf/drf.go; doc/design/plugin/drf.md
// in kube-batch): a job's share is its dominant share of the cluster (the largest of its
// devices, CPUs and memory over the cluster's); jobs with smaller shares go first, and a task may
// preempt another job's task when, after the move, the preemptor's share is still below (or
// equal to) the victim's. Ghodsi et al., "Dominant Resource Fairness", NSDI'11.
#include "policies/kube_batch/plugin.h"

#include <cmath>
#include <map>
#include <vector>

namespace dlsim::kb {

namespace {

constexpr double kShareDelta = 0.000001; // drf.go's shareDelta

class Drf final : public Plugin {
public:
  explicit Drf(const PluginOptions& o) : Plugin(o) { PluginArguments args(options(), {}); }

  // Volcano builds its job attributes at every session open; here only the entries the
  // session built again have new ones (any other is as the last session found it).
  void on_session_open(const Session& s) override {
    allocated_.resize(s.jobs().size());
    share_.resize(s.jobs().size());
    auto reset = [&](const JobInfo& j) {
      // task_req x (bound + running) and its dominant share, computed when the entry was built
      allocated_[j.index] = j.held;
      share_[j.index] = j.held_share;
    };
    if (s.renumbered()) {
      for (const JobInfo& j : s.jobs())
        reset(j);
    } else {
      for (std::size_t i : s.rebuilt())
        reset(s.job(i));
    }
  }
  void on_allocate(const Session& s, const JobInfo& j) override {
    allocated_[j.index] += j.task_req;
    share_[j.index] = dominant_share(allocated_[j.index], s.total());
  }
  void on_deallocate(const Session& s, const JobInfo& j) override {
    allocated_[j.index] -= j.task_req;
    share_[j.index] = dominant_share(allocated_[j.index], s.total());
  }

  std::optional<int> job_order(const Session&, const JobInfo& l, const JobInfo& r) const override {
    double ls = share_[l.index];
    double rs = share_[r.index];
    if (ls == rs) return 0;
    return ls < rs ? -1 : 1;
  }

  std::optional<std::vector<TaskRef>>
  preemptable(const Session& s, TaskRef preemptor,
              const std::vector<TaskRef>& cands) const override {
    const JobInfo& p = s.job(preemptor.job);
    double ls = dominant_share(allocated_[p.index] + p.task_req, s.total());
    std::map<std::size_t, Resources> after;
    std::vector<TaskRef> victims;
    for (const TaskRef& c : cands) {
      const JobInfo& v = s.job(c.job);
      auto it = after.try_emplace(v.index, allocated_[v.index]).first;
      it->second -= v.task_req;
      double rs = dominant_share(it->second, s.total());
      if (ls < rs || std::fabs(ls - rs) <= kShareDelta) victims.push_back(c);
    }
    return victims;
  }

private:
  std::vector<Resources> allocated_; // per session job: what its ready tasks hold
  std::vector<double> share_;        // per session job: its dominant share
};

} // namespace

std::unique_ptr<Plugin> make_drf(const PluginOptions& o) {
  return std::make_unique<Drf>(o);
}

} // namespace dlsim::kb
