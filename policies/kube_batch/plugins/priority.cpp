// kube-batch / Volcano `priority` plugin (pkg/scheduler/plugins/priority/priority.go): higher
// job priority first for jobs and tasks; a task may preempt only tasks of lower-priority jobs; a
// job is starving while some of its tasks neither hold nor await resources. dlsim's priority is
// the trace's `priority` column (a PriorityClass value).
#include "policies/kube_batch/plugin.h"

namespace dlsim::kb {

namespace {

int by_priority(int l, int r) {
  return l == r ? 0 : (l > r ? -1 : 1);
}

class Priority final : public Plugin {
public:
  explicit Priority(const PluginOptions& o) : Plugin(o) { PluginArguments args(options(), {}); }

  std::optional<int> job_order(const Session&, const JobInfo& l, const JobInfo& r) const override {
    return by_priority(l.priority, r.priority);
  }
  std::optional<int> task_order(const Session& s, TaskRef l, TaskRef r) const override {
    return by_priority(s.job(l.job).priority, s.job(r.job).priority);
  }
  std::optional<std::vector<TaskRef>>
  preemptable(const Session& s, TaskRef preemptor,
              const std::vector<TaskRef>& cands) const override {
    const JobInfo& p = s.job(preemptor.job);
    std::vector<TaskRef> victims;
    for (const TaskRef& c : cands) {
      // Tasks of one job have one priority in dlsim: a job never preempts itself.
      if (c.job != preemptor.job && s.job(c.job).priority < p.priority) victims.push_back(c);
    }
    return victims;
  }
  std::optional<bool> job_starving(const Session&, const JobInfo& j) const override {
    return j.ready() + j.waiting() < j.tasks.size();
  }
};

} // namespace

std::unique_ptr<Plugin> make_priority(const PluginOptions& o) {
  return std::make_unique<Priority>(o);
}

} // namespace dlsim::kb
