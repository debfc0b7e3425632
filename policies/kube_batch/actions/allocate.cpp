// The `allocate` action (kube-batch and Volcano pkg/scheduler/actions/allocate/allocate.go):
// repeatedly take the first queue (queue order) that is not overused, its first job (job
// order), and give the job's pending tasks, one by one, the best node (predicates, then node
// scores; nodes with idle devices before nodes whose devices are being released, where the task
// is pipelined). A job's tasks form one statement: committed (bound, or the job started) once
// the job is ready (gang: minMember tasks placed), kept in the session when only pipelined,
// discarded otherwise. A ready job with tasks left goes back to its queue.
#include "policies/kube_batch/actions/actions.h"

#include <algorithm>
#include <tuple>
#include <vector>

namespace dlsim::kb {

namespace {

// The best node for one more task of job j: (node, type), or node -1. Ties go to the lower node
// id (kube-batch picks at random among equal scores). On idle devices, the session's ordered
// nodes of the job's shape; on future idle devices, a scan of the nodes without room on idle ones.
std::pair<std::int64_t, DeviceTypeId> best_node(Session& s, const JobInfo& j, std::uint32_t shape,
                                                bool future) {
  if (!future) return s.best_idle_node(j, shape);
  // Nothing is being released: no node's future idle devices hold more than its idle ones.
  if (!s.releasing_anywhere()) return {-1, 0};
  std::int64_t best = -1;
  DeviceTypeId best_type = 0;
  double best_score = 0;
  for (const NodeInfo& n : s.nodes()) {
    std::int32_t t = s.fit_type(j, n, future);
    if (t < 0) continue;
    if (s.idle_fit(j, shape, n).type >= 0) continue; // already a candidate on idle devices
    double score = s.node_score(j, n, static_cast<DeviceTypeId>(t));
    if (best < 0 || score > best_score) {
      best = n.id;
      best_type = static_cast<DeviceTypeId>(t);
      best_score = score;
    }
  }
  return {best, best_type};
}

// Shapes (Session::shape_of: device types, request per task, device memory: what decides where
// a task fits) for which no node had room, idle or future, since resources last grew. Within
// one allocate action resources only shrink (tasks are allocated or pipelined) until a
// statement is discarded, so a shape that found no node finds none again: the search is
// skipped, which turns a session from jobs x nodes into about shapes x nodes on a long queue.
struct NoRoom {
  std::vector<char> shapes; // [shape] 1: no room
  [[nodiscard]] bool has(std::uint32_t shape) const {
    return shape < shapes.size() && shapes[shape] != 0;
  }
  void add(std::uint32_t shape) {
    if (shapes.size() <= shape) shapes.resize(shape + 1, 0);
    shapes[shape] = 1;
  }
  void clear() { std::fill(shapes.begin(), shapes.end(), 0); }
};

// Tries the job's tasks from `next` on (each pending task is tried once per session, as
// allocate.go pops it from the job's task queue); true when the job is ready and has tasks left.
bool allocate_job(Session& s, std::size_t ji, std::uint32_t& next, NoRoom& no_room) {
  JobInfo& job = s.job(ji);
  const auto n_tasks = static_cast<std::uint32_t>(job.tasks.size());
  // A gang that idle and releasing devices cannot hold would be discarded: skip the search.
  if (s.gang_ready_checked() && job.ready() + job.waiting() + s.room_for(job) < job.min_member) {
    next = n_tasks;
    return false;
  }
  auto untried = [&] {
    while (next < n_tasks && job.tasks[next].status != TaskStatus::kPending)
      ++next;
    return next < n_tasks;
  };
  Statement st(s);
  const std::uint32_t shape = s.shape_of(job);
  while (untried()) {
    std::uint32_t k = next++;
    if (!s.allocatable(job.queue, job)) continue;
    if (no_room.has(shape)) break; // as the two searches below would find
    // The job's allowed types narrow to one once a task holds devices: its shape after that.
    const std::uint32_t shape_id = s.shape_of(job);
    auto [node, type] = best_node(s, job, shape_id, false);
    if (node >= 0) {
      st.allocate(TaskRef{ji, k}, static_cast<NodeId>(node), type);
    } else {
      std::tie(node, type) = best_node(s, job, shape_id, true);
      // The tasks of a dlsim job are alike: when one fits nowhere, none of the rest does.
      if (node < 0) {
        no_room.add(shape);
        break;
      }
      st.pipeline(TaskRef{ji, k}, static_cast<NodeId>(node), type);
    }
    if (s.job_ready(job)) break;
  }
  if (s.job_ready(job)) {
    st.commit();
    return untried();
  }
  if (s.job_pipelined(job)) {
    st.keep(); // Volcano: "do not commit stmt when job is pipelined"
  } else {
    if (!st.empty()) no_room.clear(); // its tasks' resources come back
    st.discard();
  }
  return false;
}

} // namespace

void allocate(Session& s) {
  NoRoom no_room;
  // queue -> jobs with pending tasks
  auto jobs = ordered_pending_jobs_by_queue(s, [](const JobInfo& j) { return j.inqueue; });
  for (const auto& list : s.pending_by_queue()) {
    for (std::size_t j : list)
      s.job(j).next_task = 0;
  }
  std::vector<std::uint32_t> queues;
  queues.reserve(jobs.size());
  for (const auto& [q, list] : jobs)
    queues.push_back(q);
  while (!queues.empty()) {
    std::uint32_t q = best_queue(s, queues);
    JobQueue& list = jobs.at(q);
    if (s.overused(q) || list.empty()) {
      queues.erase(std::find(queues.begin(), queues.end(), q));
      continue;
    }
    std::size_t j = list.pop();
    if (allocate_job(s, j, s.job(j).next_task, no_room)) list.push(j);
  }
}

} // namespace dlsim::kb
