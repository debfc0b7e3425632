// The `reclaim` action (kube-batch and Volcano pkg/scheduler/actions/reclaim/reclaim.go): queues
// in queue order, skipping overused ones; a starving job of the queue takes back resources from
// other (reclaimable) queues: for each pending task that its queue may still be given
// (Preemptive: within the deserved share), the first node (by id) where the running tasks of
// other queues that the plugins agree to give up (Reclaimable: proportion lets a queue lose
// what it holds beyond its deserved share) free enough room; they are evicted, worst first (none
// when the node's future idle devices already hold the task), and the task is pipelined there.
// Committed when the job ends up pipelined and something was evicted. A queue goes back
// into the rotation while it has starving jobs, so shares are re-checked after every job.
#include "policies/kube_batch/actions/actions.h"

#include <algorithm>
#include <map>

namespace dlsim::kb {

namespace {

void reclaim_for_task(Session& s, Statement& st, TaskRef t) {
  const JobInfo& job = s.job(t.job);
  for (const NodeInfo& n : s.nodes()) {
    if (s.node_type(job, n) < 0) continue;
    std::vector<TaskRef> reclaimees;
    for (const TaskRef& r : n.tasks) {
      const JobInfo& other = s.job(r.job);
      if (s.task(r).status == TaskStatus::kRunning && other.queue != job.queue &&
          s.queues()[other.queue].reclaimable) {
        reclaimees.push_back(r);
      }
    }
    if (reclaimees.empty()) continue;
    sort_worst_first(s, reclaimees);
    // As in Volcano, a node with reclaimees takes the task even when the plugins give up none
    // of them, if its future idle devices hold it (see evict_and_pipeline).
    std::vector<TaskRef> victims = s.reclaimable(t, reclaimees);
    sort_worst_first(s, victims);
    if (evict_and_pipeline(s, st, t, n, victims, false)) return;
  }
}

} // namespace

void reclaim(Session& s) {
  s.list_node_tasks(); // victims are found by node
  // queue -> reclaimer jobs
  auto starving =
      pending_jobs_by_queue(s, [&](const JobInfo& j) { return j.inqueue && s.job_starving(j); });
  std::vector<std::uint32_t> queues;
  queues.reserve(starving.size());
  for (const auto& [q, jobs] : starving)
    queues.push_back(q);
  while (!queues.empty()) {
    std::uint32_t q = best_queue(s, queues);
    JobQueue& jobs = starving.at(q);
    if (s.overused(q) || jobs.empty()) {
      queues.erase(std::find(queues.begin(), queues.end(), q));
      continue;
    }
    std::size_t ji = jobs.pop();
    JobInfo& job = s.job(ji);
    Statement st(s);
    std::deque<std::uint32_t> tasks = pending_tasks(job);
    while (!tasks.empty() && s.job_starving(job)) {
      std::uint32_t k = tasks.front();
      tasks.pop_front();
      if (!s.preemptive(q, job)) continue;
      reclaim_for_task(s, st, TaskRef{ji, k});
    }
    close_statement(s, st, job);
  }
}

} // namespace dlsim::kb
