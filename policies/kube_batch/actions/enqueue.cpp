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
  std::map<std::uint32_t, JobQueue> jobs;
  for (std::size_t i = 0; i < s.jobs().size(); ++i) {
    const JobInfo& j = s.job(i);
    if (!j.inqueue) jobs.try_emplace(j.queue, s).first->second.add(i);
  }
  std::vector<std::uint32_t> queues;
  for (auto& [q, list] : jobs) {
    list.sort();
    queues.push_back(q);
  }
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
