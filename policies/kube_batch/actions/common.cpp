// Helpers that several actions share (see actions.h), and the action table.
#include "policies/kube_batch/actions/actions.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace dlsim::kb {

Action find_action(const std::string& name) {
  if (name == "enqueue") return &enqueue;
  if (name == "allocate") return &allocate;
  if (name == "backfill") return &backfill;
  if (name == "preempt") return &preempt;
  if (name == "reclaim") return &reclaim;
  throw InputError(fmt::format("policy.params.actions: unknown action '{}'", name));
}

std::deque<std::uint32_t> pending_tasks(const JobInfo& j) {
  std::deque<std::uint32_t> out;
  for (std::uint32_t k = 0; k < j.tasks.size(); ++k) {
    if (j.tasks[k].status == TaskStatus::kPending) out.push_back(k);
  }
  return out;
}

void JobQueue::sort() {
  std::stable_sort(q_.begin(), q_.end(), [this](std::size_t a, std::size_t b) {
    return s_->job_less(s_->job(a), s_->job(b));
  });
}

void JobQueue::push(std::size_t job) {
  auto at = std::upper_bound(q_.begin(), q_.end(), job, [this](std::size_t a, std::size_t b) {
    return s_->job_less(s_->job(a), s_->job(b));
  });
  q_.insert(at, job);
}

std::size_t JobQueue::pop() {
  std::size_t j = q_.front();
  q_.pop_front();
  return j;
}

std::map<std::uint32_t, JobQueue> jobs_by_queue(const Session& s,
                                                const std::function<bool(const JobInfo&)>& keep) {
  std::map<std::uint32_t, JobQueue> by_queue;
  for (std::size_t i = 0; i < s.jobs().size(); ++i) {
    const JobInfo& j = s.job(i);
    if (j.live && keep(j)) by_queue.try_emplace(j.queue, s).first->second.add(i);
  }
  for (auto& [q, list] : by_queue)
    list.sort();
  return by_queue;
}

std::map<std::uint32_t, JobQueue>
ordered_pending_jobs_by_queue(Session& s, const std::function<bool(const JobInfo&)>& keep) {
  std::map<std::uint32_t, JobQueue> by_queue;
  const auto& ordered = s.pending_in_order(keep);
  for (std::uint32_t q = 0; q < ordered.size(); ++q) {
    for (std::size_t i : ordered[q])
      by_queue.try_emplace(q, s).first->second.add(i);
  }
  return by_queue;
}

std::map<std::uint32_t, JobQueue>
pending_jobs_by_queue(const Session& s, const std::function<bool(const JobInfo&)>& keep) {
  std::map<std::uint32_t, JobQueue> by_queue;
  const auto& pending = s.pending_by_queue();
  for (std::uint32_t q = 0; q < pending.size(); ++q) {
    for (std::size_t i : pending[q]) {
      if (keep(s.job(i))) by_queue.try_emplace(q, s).first->second.add(i);
    }
  }
  // The job order is total (it ends with creation time and id): the lists' order does not
  // matter.
  for (auto& [q, list] : by_queue)
    list.sort();
  return by_queue;
}

std::uint32_t best_queue(const Session& s, const std::vector<std::uint32_t>& queues) {
  std::uint32_t best = queues.front();
  for (std::uint32_t q : queues) {
    if (s.queue_less(q, best)) best = q;
  }
  return best;
}

void sort_worst_first(const Session& s, std::vector<TaskRef>& tasks) {
  std::stable_sort(tasks.begin(), tasks.end(),
                   [&](const TaskRef& a, const TaskRef& b) { return s.task_less(b, a); });
}

namespace {

std::int32_t fits(const Session& s, const JobInfo& job, const NodeInfo& n, bool allocatable) {
  if (allocatable && !s.allocatable(job.queue, job)) return -1;
  return s.fit_type(job, n, true);
}

} // namespace

bool evict_and_pipeline(Session& s, Statement& into, TaskRef t, const NodeInfo& n,
                        const std::vector<TaskRef>& victims, bool allocatable) {
  const JobInfo& job = s.job(t.job);
  Statement here(s);
  for (const TaskRef& v : victims) {
    if (fits(s, job, n, allocatable) >= 0) break;
    here.evict(v);
  }
  std::int32_t type = fits(s, job, n, allocatable);
  if (type < 0) return false; // `here` is discarded as it goes out of scope
  here.pipeline(t, n.id, static_cast<DeviceTypeId>(type));
  into.merge(here);
  return true;
}

void close_statement(Session& s, Statement& st, const JobInfo& job) {
  if (st.has_evictions() && s.job_pipelined(job)) {
    st.commit();
  } else {
    st.discard();
  }
}

} // namespace dlsim::kb
