// kube-batch / Volcano `gang` plugin (pkg/scheduler/plugins/gang/gang.go): a job is ready when
// minMember of its tasks hold resources, pipelined when that many hold or await them; a job that
// is not ready comes before one that is; a task may be evicted only while its job keeps more
// than minMember ready tasks. In dlsim minMember is the job's min_workers (its gang size).
#include "policies/kube_batch/plugin.h"

#include <map>

namespace dlsim::kb {

namespace {

class Gang final : public Plugin {
public:
  explicit Gang(const PluginOptions& o) : Plugin(o) { PluginArguments args(options(), {}); }

  std::optional<int> job_order(const Session&, const JobInfo& l, const JobInfo& r) const override {
    bool lr = l.ready() >= l.min_member;
    bool rr = r.ready() >= r.min_member;
    if (lr == rr) return 0;
    return lr ? 1 : -1;
  }
  std::optional<bool> job_ready(const Session&, const JobInfo& j) const override {
    return j.ready() >= j.min_member;
  }
  std::optional<int> job_pipelined(const Session&, const JobInfo& j) const override {
    return j.ready() + j.waiting() >= j.min_member ? 1 : -1;
  }
  std::optional<bool> job_starving(const Session&, const JobInfo& j) const override {
    return j.ready() + j.waiting() < j.min_member;
  }
  std::optional<std::vector<TaskRef>>
  preemptable(const Session& s, TaskRef, const std::vector<TaskRef>& cands) const override {
    return surplus(s, cands);
  }
  std::optional<std::vector<TaskRef>>
  reclaimable(const Session& s, TaskRef, const std::vector<TaskRef>& cands) const override {
    return surplus(s, cands);
  }

private:
  // Tasks beyond each job's minMember. For a rigid job (min_workers = workers) there are none:
  // gang never lets a pod of a whole gang go, so under Volcano's tier rule the next tier
  // decides (see docs/policies.md).
  static std::vector<TaskRef> surplus(const Session& s, const std::vector<TaskRef>& cands) {
    std::map<std::size_t, std::uint32_t> occupied;
    std::vector<TaskRef> victims;
    for (const TaskRef& c : cands) {
      const JobInfo& j = s.job(c.job);
      auto it = occupied.try_emplace(c.job, j.ready()).first;
      if (it->second > j.min_member) {
        --it->second;
        victims.push_back(c);
      }
    }
    return victims;
  }
};

} // namespace

std::unique_ptr<Plugin> make_gang(const PluginOptions& o) {
  return std::make_unique<Gang>(o);
}

} // namespace dlsim::kb
