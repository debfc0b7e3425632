// The `preempt` action (kube-batch pkg/scheduler/actions/preempt/preempt.go, Volcano's
// normalPreempt): within each queue, a starving job's pending tasks, one by one, look for a node
// (best score first) where the running tasks of other jobs of the same queue that every plugin
// of a tier agrees to give up (Preemptable) free enough room; those victims are evicted, worst
// first, until the task fits (none when the node's future idle devices already hold it), and the
// task is pipelined there. The job's evictions are committed only when it ends up pipelined
// (gang: minMember tasks placed or promised) and something was evicted. Evicting a task in
// dlsim suspends its whole job (see docs/policies.md). The second phase of kube-batch's preempt
// (tasks of one job preempting each other by task priority) has nothing to do in dlsim, where
// the tasks of a job are alike.
#include "policies/kube_batch/actions/actions.h"

#include <algorithm>
#include <map>

namespace dlsim::kb {

namespace {

bool preempt_for_task(Session& s, Statement& st, TaskRef t) {
  const JobInfo& job = s.job(t.job);
  // Nodes that could hold the task at all, best score first (ties: lower id).
  std::vector<std::pair<double, NodeId>> order;
  for (const NodeInfo& n : s.nodes()) {
    std::int32_t type = s.node_type(job, n);
    if (type >= 0) order.emplace_back(-s.node_score(job, n, static_cast<DeviceTypeId>(type)), n.id);
  }
  std::sort(order.begin(), order.end());
  for (const auto& [score, id] : order) {
    const NodeInfo& n = s.nodes()[id];
    std::vector<TaskRef> preemptees;
    for (const TaskRef& r : n.tasks) {
      const JobInfo& other = s.job(r.job);
      if (s.task(r).status == TaskStatus::kRunning && other.queue == job.queue && r.job != t.job) {
        preemptees.push_back(r);
      }
    }
    sort_worst_first(s, preemptees);
    // No victim may be needed (see evict_and_pipeline).
    std::vector<TaskRef> victims = s.preemptable(t, preemptees);
    sort_worst_first(s, victims);
    if (evict_and_pipeline(s, st, t, n, victims, true)) return true;
  }
  return false;
}

} // namespace

void preempt(Session& s) {
  s.list_node_tasks(); // victims are found by node
  // queue -> preemptor jobs
  auto starving =
      pending_jobs_by_queue(s, [&](const JobInfo& j) { return j.inqueue && s.job_starving(j); });
  for (auto& [q, jobs] : starving) {
    while (!jobs.empty()) {
      std::size_t ji = jobs.pop();
      JobInfo& job = s.job(ji);
      Statement st(s);
      std::deque<std::uint32_t> tasks = pending_tasks(job);
      while (!tasks.empty() && s.job_starving(job)) {
        std::uint32_t k = tasks.front();
        tasks.pop_front();
        preempt_for_task(s, st, TaskRef{ji, k});
      }
      close_statement(s, st, job);
    }
  }
}

} // namespace dlsim::kb
