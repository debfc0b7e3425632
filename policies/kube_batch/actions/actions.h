// kube-batch / Volcano actions (pkg/scheduler/actions/*): each runs once per session, in the
// order of the configuration's `actions` string.
#pragma once

#include "policies/kube_batch/session.h"

#include <deque>
#include <functional>
#include <map>
#include <string>

namespace dlsim::kb {

using Action = void (*)(Session&);

void enqueue(Session& s);
void allocate(Session& s);
void backfill(Session& s);
void preempt(Session& s);
void reclaim(Session& s);

Action find_action(const std::string& name); // one of action_names()

// Shared by the actions.

// The job's pending tasks, in task order (the per-job task queue of allocate.go).
std::deque<std::uint32_t> pending_tasks(const JobInfo& j);
// Jobs in the session's job order, like Volcano's util.PriorityQueue: a job is placed when it is
// pushed, and keeps its place if its rank changes while it waits (until popped and pushed again).
class JobQueue {
public:
  explicit JobQueue(const Session& s) : s_(&s) {}
  void add(std::size_t job) { q_.push_back(job); } // then sort() once, or add in order
  void sort();
  void push(std::size_t job); // into its place
  std::size_t pop();
  [[nodiscard]] bool empty() const { return q_.empty(); }

private:
  const Session* s_;
  std::deque<std::size_t> q_;
};
// The session's jobs for which `keep` holds, one JobQueue per queue id, each sorted.
std::map<std::uint32_t, JobQueue> jobs_by_queue(const Session& s,
                                                const std::function<bool(const JobInfo&)>& keep);
// The same among the jobs with pending tasks only, from the order the session keeps
// (Session::pending_in_order): what allocate looks at.
std::map<std::uint32_t, JobQueue>
ordered_pending_jobs_by_queue(Session& s, const std::function<bool(const JobInfo&)>& keep);
// The same among the jobs with pending tasks only (the session's lists of them): what allocate,
// preempt and reclaim look at, without a walk over every job.
std::map<std::uint32_t, JobQueue>
pending_jobs_by_queue(const Session& s, const std::function<bool(const JobInfo&)>& keep);
// The best queue of `queues` by the session's queue order.
std::uint32_t best_queue(const Session& s, const std::vector<std::uint32_t>& queues);
// Candidates sorted worst first (reverse task order: lowest priority, newest job first), the
// order in which Volcano's BuildVictimsPriorityQueue evicts and dlsim hands them to plugins.
void sort_worst_first(const Session& s, std::vector<TaskRef>& tasks);
// Evicts `victims` (worst first; possibly none) until task `t` fits node `n`'s future idle
// devices, then pipelines it there, all in `into`. False (and nothing done) when it cannot fit.
// No victim is needed where the node's future idle devices (idle, or freed by earlier
// evictions) already hold the task: Volcano's ValidateVictims ("it is possible to complete the
// scheduling of the preemptor without evicting the task"). With `allocatable`, fitting also
// needs the job's queue to allow one more task (Volcano's preemptorFitsOnNode).
bool evict_and_pipeline(Session& s, Statement& into, TaskRef t, const NodeInfo& n,
                        const std::vector<TaskRef>& victims, bool allocatable);
// Ends a preemptor's (reclaimer's) statement, Volcano's "commit if the job is pipelined, else
// discard", with one dlsim difference: a statement that evicts nothing is discarded too. Its
// pipelines alone would change nothing in the runtime (promises are not kept across sessions),
// yet they take the job's tasks out of the pending ones, so that an `allocate` later in the
// same session would not place them on the idle devices they were promised. kube-batch opens a
// session every second and places them in the next one; dlsim's next session may be far off,
// and a `reclaim` before `allocate` would make the same empty promise at every session.
void close_statement(Session& s, Statement& st, const JobInfo& job);

} // namespace dlsim::kb
