// The `allocate` action (kube-batch and Volcano pkg/scheduler/actions/allocate/allocate.go):
// repeatedly take the first queue (queue order) that is not overused, its first job (job
// order), and give the job's pending tasks, one by one, the best node (predicates, then node
// scores; nodes with idle devices before nodes whose devices are being released, where the task
// is pipelined). A job's tasks form one statement: committed (bound, or the job started) once
// the job is ready (gang: minMember tasks placed), kept in the session when only pipelined,
// discarded otherwise. A ready job with tasks left goes back to its queue.
#include "policies/kube_batch/actions/actions.h"

#include <algorithm>
#include <deque>
#include <iterator>
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

// One attempt at job j's tasks from `next` on, into statement st: each pending task gets the best
// node, until the job is ready (gang) or a task finds no node.
void place_tasks(Session& s, std::size_t ji, std::uint32_t& next, NoRoom& no_room, Statement& st) {
  JobInfo& job = s.job(ji);
  const auto n_tasks = static_cast<std::uint32_t>(job.tasks.size());
  const std::uint32_t shape = s.shape_of(job);
  while (next < n_tasks) {
    if (job.tasks[next].status != TaskStatus::kPending) {
      ++next;
      continue;
    }
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
}

// Tries the job's tasks from `next` on (each pending task is tried once per session, as
// allocate.go pops it from the job's task queue); true when the job is ready and has tasks left.
//
// A job that may run on several device types binds them with its first task (a dlsim job runs
// on one type; Kubernetes would place the pods of a job without a node selector on nodes of any
// GPU type). When its gang then does not fit on that type, each other type is tried in turn, as
// a node selector per type would be: without this, a gang that fits only on a type its first
// task did not choose (three 4-GPU workers, one 8-GPU V100 node and three 4-GPU P100 nodes)
// would be discarded at every session and never run.
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
  const std::uint32_t first = next;
  const bool any_type = job.type < 0 && job.compatible.size() > 1;
  std::uint32_t reached = next;
  std::int32_t bound = -1; // the type the first attempt's tasks bound
  for (std::size_t attempt = 0;; ++attempt) {
    if (attempt > 0) {
      if (attempt > job.compatible.size()) break;
      const DeviceTypeId t = job.compatible[attempt - 1];
      if (static_cast<std::int32_t>(t) == bound) continue;
      job.type = static_cast<std::int32_t>(t);
      next = first;
    }
    Statement st(s);
    place_tasks(s, ji, next, no_room, st);
    reached = std::max(reached, next);
    if (s.job_ready(job)) {
      st.commit();
      return untried();
    }
    if (s.job_pipelined(job)) {
      st.keep(); // Volcano: "do not commit stmt when job is pipelined"
      return false;
    }
    if (attempt == 0) bound = job.type;
    const bool placed_some = !st.empty();
    if (placed_some) no_room.clear(); // its tasks' resources come back
    st.discard();
    if (attempt > 0) job.type = -1;
    // Another type can help only a job of several types whose first attempt bound one.
    if (!any_type || bound < 0) break;
  }
  next = reached;
  return false;
}

// The walk of allocate() below, by group (Session::groups), without popping one by one the jobs
// that would change nothing. Why it is exact:
//
// 1. A pop that leaves the session's state as it found it changes nothing but the walk's place.
//    allocate_job(j) leaves Session::version() as it was when it did no op (the gang check
//    failed, no task was allocatable, or the first allocatable task found no node: the no-room
//    mark of its shape only records that; its empty statement changes nothing when committed,
//    kept or discarded, and no_room.clear() is not called), or when it did ops and discarded
//    them and undoing is exact (Session::exact_undo: whole CPUs and GB everywhere, so every
//    number, the drf and proportion sums included, comes back bit for bit; the no-room marks it
//    clears are only remembered searches, which would find the same again). The job itself
//    changed (it is built again at the next open) but it has left its queue for this session.
//    A job that did nothing may come back (allocate_job returns true when it counts as ready
//    without gang); it is then the front of its queue again and is popped until its tasks are
//    tried.
// 2. What allocate_job does with a plain job depends only on its group and the session's state:
//    with nothing held, its ready and pipelined counts are 0, its tasks all pending and its
//    allowed types its compatible ones; the gang check reads min_member, the allowed types and
//    the request per task (room_for); allocatable reads the queue and the request
//    (proportion); the node searches read the shape (best_node, as Session::idle_fit already
//    relies on); job_ready and job_pipelined read the counts, min_member and whether it is
//    suspended; the loop runs over its tasks. So when the front job of a group left the state
//    as it was, every later job of the group would too, until version() moves: the group is
//    blocked at that version.
// 3. The queue order (proportion's shares) and overused() move only with the state, and the job
//    order of the waiting jobs changes only with ops on them; only the popped job gets ops.
//    So popping a run of jobs that leave the state as it was leaves the walk where it was: the
//    same queue is chosen again, and the jobs it pops are, in job order, the rest of the
//    queue's list. A queue's list is the merge of its groups' sets (in job order) and the jobs
//    pushed back: its front is the least of their heads. The heads of blocked groups are left
//    out, and when a job X is popped, the jobs of blocked groups ordered before X are stepped
//    over: the full walk would have popped them before X, changing nothing. When every group
//    left is blocked and nothing was pushed back, the rest of the queue changes nothing: the
//    full walk would pop it all and drop the queue, as this walk drops it at once.
// 4. Within the session the groups' sets do not change but for the popped job, which leaves its
//    set when an op changes it (Session::mark_changed); cursors only move forward, so each job
//    of a set is popped from it at most once per session, as the full walk pops it from the
//    list it builds.
// A session then costs O(groups x (placements + 1)) tries, not one per job with pending tasks.
void allocate_grouped(Session& s) {
  NoRoom no_room;
  std::deque<Session::JobGroup>& groups = s.groups();
  const auto& groups_of = s.groups_of_queue();
  constexpr std::uint64_t kNever = ~std::uint64_t{0};
  struct Cursor {
    JobSet::iterator at;
    std::uint64_t blocked_at = kNever; // version() when its front job left it as it was
  };
  std::vector<Cursor> cursors(groups.size());
  std::vector<std::vector<std::size_t>> pushed(groups_of.size()); // [queue] in job order
  std::vector<std::uint32_t> queues;
  for (std::uint32_t q = 0; q < groups_of.size(); ++q) {
    bool any = false;
    for (std::uint32_t g : groups_of[q]) {
      cursors[g].at = groups[g].jobs.begin();
      any = any || !groups[g].jobs.empty();
    }
    if (any) queues.push_back(q);
  }
  auto less = [&s](std::size_t a, std::size_t b) { return s.job_less(s.job(a), s.job(b)); };
  while (!queues.empty()) {
    const std::uint32_t q = best_queue(s, queues);
    if (s.overused(q)) {
      queues.erase(std::find(queues.begin(), queues.end(), q));
      continue;
    }
    const std::uint64_t now = s.version();
    // The front of the queue's list among the groups not blocked and the jobs pushed back.
    std::int64_t from = -1; // group, or -1: pushed back
    std::size_t front = 0;
    bool found = false;
    for (std::uint32_t g : groups_of[q]) {
      const Cursor& c = cursors[g];
      if (c.at == groups[g].jobs.end() || c.blocked_at == now) continue;
      if (!found || less(*c.at, front)) {
        front = *c.at;
        from = g;
        found = true;
      }
    }
    std::vector<std::size_t>& back = pushed[q];
    if (!back.empty() && (!found || less(back.front(), front))) {
      front = back.front();
      from = -1;
      found = true;
    }
    if (!found) { // what is left places nothing (3.)
      queues.erase(std::find(queues.begin(), queues.end(), q));
      continue;
    }
    for (std::uint32_t g : groups_of[q]) {
      Cursor& c = cursors[g];
      const JobSet& set = groups[g].jobs;
      if (c.blocked_at != now || c.at == set.end() || !less(*c.at, front)) continue;
      // Often the whole rest precedes it (a standing queue of gangs behind a small job).
      c.at = less(*std::prev(set.end()), front) ? set.end() : set.upper_bound(front);
    }
    if (from >= 0) {
      ++cursors[static_cast<std::size_t>(from)].at; // the job may leave the set: step first
      s.job(front).next_task = 0;                   // its first pop in this session (4.)
    } else {
      back.erase(back.begin());
    }
    if (allocate_job(s, front, s.job(front).next_task, no_room))
      back.insert(std::upper_bound(back.begin(), back.end(), front, less), front);
    if (from >= 0 && s.version() == now && groups[static_cast<std::size_t>(from)].plain())
      cursors[static_cast<std::size_t>(from)].blocked_at = now;
  }
}

} // namespace

void allocate(Session& s) {
  if (s.grouped()) {
    allocate_grouped(s);
    return;
  }
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
