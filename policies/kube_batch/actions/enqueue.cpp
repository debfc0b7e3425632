// Volcano's `enqueue` action (pkg/scheduler/actions/enqueue/enqueue.go): in queue order, offer
// each pending job (PodGroup phase Pending) to the plugins' JobEnqueueable (proportion: the
// queue's capability; overcommit: the cluster times overcommit-factor); an admitted job becomes
// Inqueue, and only Inqueue jobs are allocated, preempted for or reclaimed for. Without this
// action every job counts as Inqueue (Volcano's allocate.go does the same).
#include "policies/kube_batch/actions/actions.h"

#include <algorithm>
#include <map>

namespace dlsim::kb {

void enqueue(Session& s) {
  auto jobs = jobs_by_queue(s, [](const JobInfo& j) { return !j.inqueue; });
  std::vector<std::uint32_t> queues;
  for (const auto& [q, list] : jobs)
    queues.push_back(q);
  while (!queues.empty()) {
    std::uint32_t q = best_queue(s, queues);
    JobQueue& list = jobs.at(q);
    if (list.empty()) {
      queues.erase(std::find(queues.begin(), queues.end(), q));
      continue;
    }
    JobInfo& job = s.job(list.pop());
    if (s.job_enqueueable(job)) s.job_enqueued(job);
  }
}

} // namespace dlsim::kb
