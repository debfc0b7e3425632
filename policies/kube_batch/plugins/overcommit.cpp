// Volcano `overcommit` plugin (pkg/scheduler/plugins/overcommit/overcommit.go): `enqueue` admits
// a job only while the minimum resources of the admitted-but-unplaced jobs, plus its own, fit in
// overcommit-factor x the cluster less what is held:
//   inqueue + minResources(job) <= factor x total - used   (in the dimensions the job asks for)
// overcommit-factor defaults to 1.2 (Volcano's defaultOverCommitFactor); below 1 it is reset to
// 1.2, as Volcano does.
#include "policies/kube_batch/plugin.h"

namespace dlsim::kb {

namespace {

class Overcommit final : public Plugin {
public:
  explicit Overcommit(const PluginOptions& o) : Plugin(o) {
    PluginArguments args(options(), {"overcommit-factor"});
    factor_ = args.number("overcommit-factor", 1.2);
    if (factor_ < 1.0) factor_ = 1.2;
  }

  void on_session_open(const Session& s) override {
    Resources used;
    for (const NodeInfo& n : s.nodes())
      used += n.used();
    idle_ = s.total() * factor_ - used;
    inqueue_ = Resources{};
    for (const JobInfo& j : s.jobs()) {
      if (!j.live || !j.inqueue) continue;
      Resources held = j.task_req * (j.count(TaskStatus::kBound) + j.count(TaskStatus::kRunning));
      inqueue_ += exceeded_part(j.min_resources(), held);
    }
  }

  std::optional<int> job_enqueueable(const Session&, const JobInfo& j) const override {
    return less_equal_in(inqueue_ + j.min_resources(), idle_, j.min_resources()) ? 1 : -1;
  }
  void on_job_enqueued(const Session&, const JobInfo& j) override { inqueue_ += j.min_resources(); }

private:
  double factor_ = 1.2;
  Resources idle_, inqueue_;
};

} // namespace

std::unique_ptr<Plugin> make_overcommit(const PluginOptions& o) {
  return std::make_unique<Overcommit>(o);
}

} // namespace dlsim::kb
