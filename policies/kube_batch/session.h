// One scheduling session of kube-batch / Volcano (pkg/scheduler/framework/session.go): a snapshot
// of jobs (PodGroups), their tasks (pods = dlsim workers), nodes and queues, the plugins' tiered
// decisions (session_plugins.go), and statements that allocate, pipeline and evict inside the
// snapshot until they are committed (applied to the runtime when the session closes) or
// discarded (framework/statement.go).
#pragma once

#include "policies/kube_batch/config.h"
#include "policies/kube_batch/resources.h"
#include "sim/runtime/control.h"

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace dlsim::kb {

class Plugin;
class Session;

// Entries in the session's job order (Session::job_less), for std::set: the sets of pending jobs
// the session keeps by group (Session::JobGroup). An entry in such a set is unchanged since it
// was put there (it is taken out before anything changes it), so its rank is current.
struct ByJobOrder {
  const Session* s = nullptr;
  bool operator()(std::size_t a, std::size_t b) const;
};
using JobSet = std::set<std::size_t, ByJobOrder>;

// A pod's status in the session (kube-batch's api.TaskStatus, reduced to what dlsim has).
enum class TaskStatus : std::uint8_t {
  kPending,   // waiting for a node
  kAllocated, // given idle devices in this session
  kPipelined, // given devices that a suspending job is releasing (this session only)
  kBound,     // holds devices but cannot be evicted: a bound pod of a binding job, or a
              // worker of a job that is migrating or resizing
  kRunning,   // a worker of a running (or starting) job
  kReleasing, // a worker of a job being suspended: its devices free up soon
};

struct TaskInfo {
  TaskStatus status = TaskStatus::kPending;
  NodeId node = 0;
  DeviceTypeId type = 0;
  std::vector<DeviceId> devices; // devices_per_worker ids while it holds any
};

struct TaskRef {
  std::size_t job = 0; // index into Session::jobs()
  std::uint32_t task = 0;
  friend bool operator==(const TaskRef&, const TaskRef&) = default;
};

// A job (PodGroup): one task per requested worker; minMember is its requested workers, or its
// min_workers with elastic_at_min.
struct JobInfo {
  JobId id = 0;
  std::size_t index = 0;   // its place in Session::jobs()
  std::uint32_t queue = 0; // index into Session::queues()
  int priority = 0;
  SimTime created = 0;                    // submit time: the PodGroup's creation timestamp
  JobStatus status = JobStatus::kPending; // the runtime's, at session open
  std::uint32_t min_member = 1;
  std::uint32_t devices_per_task = 1;
  Resources task_req; // one pod's request
  double gpu_mem_gb = 0;
  std::span<const DeviceTypeId> compatible; // View::compatible_types (fixed for a run)
  std::vector<TaskInfo> tasks;
  bool inqueue = false;   // Volcano's Inqueue phase (always true without `enqueue`)
  std::int32_t type = -1; // the device type all its tasks share, once one holds devices
  std::array<std::uint32_t, 6> counts{}; // tasks per TaskStatus, kept by the session
  std::uint32_t held_at_open = 0;        // tasks 0..held_at_open-1 held devices at open
  std::uint32_t generation = 0;          // the runtime's JobState::generation when built
  // What the drf and proportion plugins read of the job at session open, computed when it is
  // built: task_req x (bound + running tasks), its dominant share of Session::total(), what it
  // asks for (held + task_req x pending tasks), and what it holds below and above its minimum
  // (exceeded_part of min_resources() and held, both ways).
  Resources held, asked, below_min, above_min;
  double held_share = 0;
  bool changed = false; // a session op touched it since it was built: build it again
  bool live = true;     // false: the job ended; the entry waits for Session's compaction
  // The session cache's bookkeeping (Session::open_jobs): whether the terms above are in
  // Session::queue_sums() (and below_min in its inqueue sum), whether the job's requests are
  // whole numbers, its place in its queue's pending list (-1: not there), and whether it is in
  // the list of suspending jobs.
  bool counted = false, counted_inqueue = false, whole = true, listed_suspending = false;
  std::int64_t pending_pos = -1;
  // The `allocate` action's cursor: the next of its tasks to try in this session (each pending
  // task is tried once, as allocate.go pops the job's task queue); set when allocate queues it.
  std::uint32_t next_task = 0;
  // The Session::pending_in_order call whose order placed it (0: none since it was built).
  std::uint64_t ordered_at = 0;
  // Its Session::JobGroup and place in the group's set (-1: in none).
  std::int32_t group = -1;
  JobSet::iterator group_at;

  [[nodiscard]] std::uint32_t count(TaskStatus s) const { return counts[static_cast<int>(s)]; }
  // Tasks holding or given devices now (Bound, Binding, Running, Allocated in kube-batch).
  [[nodiscard]] std::uint32_t ready() const;
  [[nodiscard]] std::uint32_t waiting() const { return count(TaskStatus::kPipelined); }
  [[nodiscard]] std::uint32_t pending() const { return count(TaskStatus::kPending); }
  [[nodiscard]] Resources min_resources() const { return task_req * min_member; }
  [[nodiscard]] bool holds_devices() const; // started, binding or being suspended
};

struct NodeInfo {
  NodeId id = 0;
  std::vector<std::vector<DeviceId>> idle; // [device type] free devices, increasing ids
  std::vector<std::uint32_t> releasing;    // [device type] held by jobs being suspended
  std::vector<std::uint32_t> pipelined;    // [device type] promised to pipelined tasks
  std::vector<std::uint32_t> capacity;     // [device type]
  double cpu_idle = 0, cpu_releasing = 0, cpu_pipelined = 0, cpu_total = 0;
  double mem_idle = 0, mem_releasing = 0, mem_pipelined = 0, mem_total = 0;
  // Tasks holding devices here at session open: listed only once an action asks
  // (Session::list_node_tasks), since most sessions never look.
  std::vector<TaskRef> tasks;
  // Changes (from a session-wide counter) whenever idle, cpu_idle or mem_idle does: a score
  // cached with the same stamp was computed on the same state (Session::idle_fit).
  std::uint64_t stamp = 0;

  // Volcano's FutureIdle: idle, plus what suspending jobs release, less what is promised.
  [[nodiscard]] std::int64_t future_idle(DeviceTypeId t) const {
    return static_cast<std::int64_t>(idle[t].size()) + releasing[t] - pipelined[t];
  }
  [[nodiscard]] Resources used() const; // held by any job (running, bound or releasing)
  [[nodiscard]] Resources allocatable() const;
};

struct QueueInfo {
  std::string name;
  double weight = 1;
  Resources capability = Resources::infinite();
  bool reclaimable = true;
};

struct Tier {
  std::vector<Plugin*> plugins;
};

// Sums over a queue's jobs of what the proportion plugin reads of each (JobInfo::held, asked,
// below_min of the jobs admitted, above_min), kept by the session as entries change.
struct QueueSums {
  Resources held, asked, inqueue_below_min, above_min;
  std::uint32_t jobs = 0; // live entries in the queue
};

// What the policy hands to a session.
struct SessionInputs {
  const std::vector<Tier>* tiers = nullptr;
  const std::vector<QueueInfo>* queues = nullptr;
  const std::vector<std::uint32_t>* queue_of_trace_queue = nullptr; // Workload::queues -> queue
  const std::vector<JobId>* arrivals = nullptr; // submitted since the last session, increasing ids
  bool enqueue_action = false;                  // without it every job counts as Inqueue
  // Keep the pending jobs in groups (Session::groups): the policy's actions are only `allocate`
  // and `backfill`, which walk them by group. The same in every session of a run.
  bool group_pending = false;
  // An elastic job's minMember is its min_workers (else its requested workers): kb::Config.
  bool elastic_at_min = false;
};

class Session {
public:
  Session() = default;
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Opens a session on the view's current state. The policy keeps one Session and opens it at
  // every decision, as Volcano's scheduler cache is kept between sessions: the snapshot's
  // storage is reused, a node whose free device counts are those the last session left keeps
  // its lists of idle devices, and a job entry is built again only when the runtime's job log
  // (View::changes) or the last session changed it.
  void open(const View& view, const SessionInputs& in);

  [[nodiscard]] const View& view() const { return *view_; }
  // The job entries in increasing id order. An entry whose `live` is false is a job that ended:
  // every reader skips it (they are dropped, and the rest renumbered, once they are half).
  [[nodiscard]] std::vector<JobInfo>& jobs() { return jobs_; }
  [[nodiscard]] const std::vector<JobInfo>& jobs() const { return jobs_; }
  [[nodiscard]] std::size_t live_jobs() const { return jobs_.size() - dead_; }
  // What this open changed: entries built (or built again) since the last session, or, when
  // renumbered(), every entry. A plugin keeping per-entry state refreshes those only.
  [[nodiscard]] const std::vector<std::size_t>& rebuilt() const { return rebuilt_; }
  [[nodiscard]] bool renumbered() const { return renumbered_; }
  // [queue] sums of the live entries' terms. Null when some live job asks for a fraction of a
  // CPU or GB: then sums kept by adding and subtracting could differ in the last bit from a
  // sum in job order, and a reader adds the terms up itself. Whole numbers add exactly in any
  // order (below 2^53).
  [[nodiscard]] const std::vector<QueueSums>* queue_sums() const {
    return inexact_ == 0 ? &queue_sums_ : nullptr;
  }
  // [queue] entries with pending tasks, in no particular order.
  [[nodiscard]] const std::vector<std::vector<std::size_t>>& pending_by_queue() const {
    return pending_;
  }
  // [queue] the entries with pending tasks for which `keep` holds, in the session's job order
  // (job_less): what Volcano's allocate puts in its per-queue job queues. The order of the last
  // call is kept, and only the entries built again or changed since are sorted and placed into
  // it: job_less reads only the two entries (their priority, readiness, share, creation time
  // and id: the bundled plugins' job_order), and an entry changes only when it is built again
  // or a session op marks it changed.
  const std::vector<std::vector<std::size_t>>&
  pending_in_order(const std::function<bool(const JobInfo&)>& keep);
  [[nodiscard]] JobInfo& job(std::size_t i) { return jobs_[i]; }
  [[nodiscard]] const JobInfo& job(std::size_t i) const { return jobs_[i]; }
  [[nodiscard]] const TaskInfo& task(TaskRef r) const { return jobs_[r.job].tasks[r.task]; }
  [[nodiscard]] std::vector<NodeInfo>& nodes() { return nodes_; }
  [[nodiscard]] const std::vector<NodeInfo>& nodes() const { return nodes_; }
  [[nodiscard]] const std::vector<QueueInfo>& queues() const { return *in_.queues; }
  [[nodiscard]] const Resources& total() const { return total_; }
  // Fills every NodeInfo::tasks (once per session): what preempt and reclaim look at.
  void list_node_tasks();
  [[nodiscard]] bool gang_ready_checked() const { return gang_ready_checked_; }

  // ---- pending jobs by group (SessionInputs::group_pending) ----
  // A group holds the pending jobs of one queue that `allocate` would treat alike: "plain" jobs
  // (nothing held at open, so no task ready or pipelined and any compatible type allowed) of one
  // shape (shape_of: device types, request per task, device memory), gang size (min_member),
  // number of tasks and suspended or not. What allocate_job does with such a job (the ops it
  // tries, and whether it commits, keeps or discards them) depends on those and the session's
  // state only. One more group per queue holds every other pending job (holding some devices: a
  // binding job, for instance), each of them tried on its own. Each group's set is in job order;
  // the sets are kept across sessions (an entry leaves its set when an op or a new build changes
  // it, and is put back after the plugins' open).
  static constexpr std::uint32_t kOtherJobs = 0xffffffffU;
  struct JobGroup {
    std::uint32_t queue = 0;
    std::uint32_t shape = 0; // kOtherJobs: the queue's jobs that are not plain
    JobSet jobs;
    [[nodiscard]] bool plain() const { return shape != kOtherJobs; }
  };
  [[nodiscard]] bool grouped() const { return in_.group_pending; }
  // A deque: its sets stay where they are (entries keep iterators into them).
  [[nodiscard]] std::deque<JobGroup>& groups() { return groups_; }
  // [queue] its groups, in the order they were made.
  [[nodiscard]] const std::vector<std::vector<std::uint32_t>>& groups_of_queue() const {
    return groups_of_queue_;
  }
  // Names the state that `allocate` reads (nodes, totals, the plugins' per-job and per-queue
  // sums, the jobs' tasks): a new number at every op done or undone (allocation, pipeline,
  // eviction), and the number a statement started from once it is discarded, when undoing is
  // exact (exact_undo). Equal before and after a call: nothing allocate reads changed.
  [[nodiscard]] std::uint64_t version() const { return version_; }
  // Undoing an op gives back every number it changed bit for bit: every live job asks for whole
  // CPUs and GB (so do the drf and proportion sums) and every node's free CPUs and memory are
  // whole, so that x - r + r == x; device counts and lists are whole anyway.
  [[nodiscard]] bool exact_undo() const { return inexact_ == 0 && fractional_nodes_ == 0; }

  // ---- the plugins' decisions, tier by tier (session_plugins.go) ----
  [[nodiscard]] bool job_less(const JobInfo& l, const JobInfo& r) const;
  [[nodiscard]] bool queue_less(std::uint32_t l, std::uint32_t r) const;
  [[nodiscard]] bool task_less(TaskRef l, TaskRef r) const;
  [[nodiscard]] bool job_ready(const JobInfo& j) const;
  [[nodiscard]] bool job_pipelined(const JobInfo& j) const;
  [[nodiscard]] bool job_starving(const JobInfo& j) const;
  [[nodiscard]] bool job_enqueueable(const JobInfo& j) const;
  void job_enqueued(JobInfo& j);
  [[nodiscard]] bool overused(std::uint32_t queue) const;
  [[nodiscard]] bool allocatable(std::uint32_t queue, const JobInfo& j) const;
  [[nodiscard]] bool preemptive(std::uint32_t queue, const JobInfo& j) const;
  [[nodiscard]] std::vector<TaskRef> preemptable(TaskRef preemptor,
                                                 const std::vector<TaskRef>& cands) const;
  [[nodiscard]] std::vector<TaskRef> reclaimable(TaskRef reclaimer,
                                                 const std::vector<TaskRef>& cands) const;
  [[nodiscard]] bool predicate(const JobInfo& j, const NodeInfo& n, DeviceTypeId t) const;
  [[nodiscard]] double node_score(const JobInfo& j, const NodeInfo& n, DeviceTypeId t) const;

  // ---- resources ----
  // Device types a task of job j may use: the one its tasks already hold, else its compatible ones.
  [[nodiscard]] std::span<const DeviceTypeId> allowed_types(const JobInfo& j) const;
  // The first allowed type with room for one more task on node n that passes the predicates:
  // on idle devices, or (future = true) on the node's future idle ones. -1 when none.
  [[nodiscard]] std::int32_t fit_type(const JobInfo& j, const NodeInfo& n, bool future) const;
  // A number for what decides where one task of job j fits and how nodes score it (its device
  // types, its request per task and its model's device memory: all that the predicates and the
  // node scores read of a job), the same in every session.
  [[nodiscard]] std::uint32_t shape_of(const JobInfo& j);
  // fit_type(j, n, false) and, when it is a type, node_score(j, n, type), for a job of that
  // shape: remembered per node and shape until the node's idle resources change. Predicates and
  // node scores are functions of the job's shape and the node's state only.
  struct IdleFit {
    std::int32_t type = -1;
    double score = 0;
  };
  [[nodiscard]] IdleFit idle_fit(const JobInfo& j, std::uint32_t shape, const NodeInfo& n);
  // The best node on idle devices for one more task of job j of that shape: the highest node
  // score, ties to the lower id (what a scan of every node's idle_fit finds), and its type;
  // node -1 when none fits. Each shape keeps its nodes with room ordered by score, and reads
  // again only the nodes restamped since it was last asked.
  [[nodiscard]] std::pair<std::int64_t, DeviceTypeId> best_idle_node(const JobInfo& j,
                                                                     std::uint32_t shape);
  // Whether devices are being released anywhere in this session (a suspending job, an
  // eviction). When not, no node's future idle resources exceed its idle ones, so a task that
  // fits no node's idle devices fits no node's future ones either.
  [[nodiscard]] bool releasing_anywhere() const { return releasing_anywhere_; }
  // At least as many tasks of job j as the cluster's future idle devices could hold (their
  // total over devices per task, ignoring nodes, CPUs and memory): an upper bound that lets a
  // gang that cannot fit skip the node search.
  [[nodiscard]] std::uint32_t room_for(const JobInfo& j) const;
  // The first allowed type whose devices node n has at all and that passes the predicates,
  // whatever is free: where preempt and reclaim look for victims. -1 when none.
  [[nodiscard]] std::int32_t node_type(const JobInfo& j, const NodeInfo& n) const;

private:
  friend class Statement;
  void do_allocate(TaskRef r, NodeId n, DeviceTypeId t, bool pipelined);
  void undo_allocate(TaskRef r);
  void do_evict(TaskRef r);
  void undo_evict(TaskRef r);
  // A task of the job is releasing its devices, CPUs and memory on its node: the node and the
  // cluster's future idle total count them.
  void count_releasing(const JobInfo& job, const TaskInfo& task);
  static void set_status(JobInfo& job, TaskInfo& task, TaskStatus s);
  // Files entry i in its queue's pending list, or takes it out, as its pending tasks say.
  void file_pending(std::size_t i);
  // Adds (sign 1) or takes back (-1) the entry's terms in queue_sums_.
  void count_terms(JobInfo& job, double sign);
  // An op of this session changed the entry: built again at the next open. It leaves its group
  // before it changes (its rank in the set would be stale).
  void mark_changed(JobInfo& job) {
    ungroup(job);
    if (job.changed) return;
    job.changed = true;
    dirty_.push_back(job.index);
  }
  // Puts entry i in its group's set when it is live with pending tasks (no-op if it is in one);
  // takes an entry out of its set.
  void group(std::size_t i);
  void ungroup(JobInfo& job);

  // Fills nodes_ from the view: totals once, idle lists where the free counts changed, and the
  // session-only fields of the nodes the last session touched.
  void open_nodes(const View& view);
  // Brings node n's idle lists, CPUs and memory up to the view's.
  void refresh_node(const View& view, NodeId n);
  // Node n's session-only fields (releasing, pipelined, tasks) changed: reset it at next open.
  void touch(NodeId n) {
    if (touched_flag_[n]) return;
    touched_flag_[n] = 1;
    touched_.push_back(n);
  }
  // Brings jobs_ up to the view: the entries the last session changed and the jobs the
  // runtime's job log marked are built again in place (or marked dead), arrivals are appended;
  // any other entry is what building it again would give.
  void open_jobs(const View& view);
  void build_job(const View& view, JobInfo& job, JobId j);
  // Entry i against the runtime: dead when the job ended, built again when it differs.
  void check_job(const View& view, std::size_t i);
  // Builds entry i (job j) again in its storage, keeping the bookkeeping in step.
  void rebuild_job(const View& view, std::size_t i, JobId j);
  // Drops dead entries and renumbers the rest.
  void compact();

  const View* view_ = nullptr;
  std::vector<DeviceTypeId> type_ids_; // 0..types-1: one-type spans for allowed_types
  SessionInputs in_;
  std::vector<JobInfo> jobs_;
  std::size_t dead_ = 0;                // entries with live == false
  std::vector<std::uint32_t> slot_of_;  // [JobId] index into jobs_, kNoSlot: none
  std::uint64_t jobs_stamp_ = 0;        // View::changes().jobs.stamp() at the last open
  std::vector<std::size_t> dirty_;      // entries with `changed` set
  std::vector<std::size_t> rebuilt_;    // entries built at this open
  bool renumbered_ = true;              // every entry counts as rebuilt
  std::vector<std::size_t> suspending_; // entries listed_suspending (some may have moved on)
  std::vector<QueueSums> queue_sums_;   // [queue]
  std::size_t inexact_ = 0;             // live entries whose requests are not whole numbers
  std::vector<std::vector<std::size_t>> pending_; // [queue] entries with pending tasks
  std::vector<std::vector<std::size_t>> order_;   // [queue] pending_in_order's last answer
  std::uint64_t order_epoch_ = 1;         // the last call's ordered_at (0 in an entry: none)
  std::vector<std::size_t> fresh_, kept_; // pending_in_order's scratch
  std::deque<JobGroup> groups_;
  std::vector<std::vector<std::uint32_t>> groups_of_queue_;
  // (queue, shape, min_member, tasks, suspended) -> index into groups_
  using GroupKey = std::array<std::uint32_t, 5>;
  std::map<GroupKey, std::uint32_t> group_ids_;
  std::uint64_t version_ = 0, last_version_ = 0;
  void new_version() { version_ = ++last_version_; }
  std::vector<char> node_fractional_; // [node] free CPUs or memory not a whole number
  std::size_t fractional_nodes_ = 0;
  static constexpr std::uint32_t kNoSlot = 0xffffffffU;
  std::vector<NodeInfo> nodes_;
  Resources total_;
  std::vector<std::int64_t> future_total_; // [device type] sum of the nodes' future idle
  std::vector<std::int64_t> idle_total_;   // [device type] sum of the nodes' idle lists
  std::vector<NodeId> touched_;            // nodes whose session-only fields are set
  std::vector<char> touched_flag_;         // [node]
  // What refresh_node last read of each node: [node * types + type] free devices, and [node]
  // free CPUs and memory.
  std::vector<std::uint32_t> seen_free_;
  std::vector<double> seen_cpu_, seen_mem_;
  std::uint64_t nodes_stamp_ = 0; // View::changes().nodes.stamp() when the last session opened
  bool node_tasks_listed_ = false;

  bool gang_ready_checked_ = false;
  std::uint64_t stamp_ = 0; // the last NodeInfo::stamp given
  struct Shape {
    std::vector<DeviceTypeId> types;
    Resources request;
    double gpu_mem_gb = 0;
  };
  std::vector<Shape> shapes_;
  struct CachedFit {
    std::uint64_t stamp = 0; // the node's when computed; 0: never
    IdleFit fit;
    // What the shape's ordered set holds for the node: as of the node's stamp listed_stamp,
    // listed with listed_score when it has room.
    std::uint64_t listed_stamp = 0;
    bool listed = false;
    double listed_score = 0;
  };
  std::vector<std::vector<CachedFit>> fits_; // [shape][node]
  // Highest score first, then the lower id.
  struct ByScore {
    bool operator()(const std::pair<double, NodeId>& a, const std::pair<double, NodeId>& b) const {
      if (a.first != b.first) return a.first > b.first;
      return a.second < b.second;
    }
  };
  struct ShapeNodes {
    std::set<std::pair<double, NodeId>, ByScore> order; // nodes with room on idle devices
    std::uint64_t seen = 0;                             // restamp position read up to
    bool built = false;
  };
  std::vector<ShapeNodes> shape_nodes_; // [shape]
  // Nodes given a new stamp, in order (repeats included), from position restamped_base_ on;
  // started over when long (a shape that read less then looks at every node).
  std::vector<NodeId> restamped_;
  std::uint64_t restamped_base_ = 0;
  void restamp(NodeInfo& n);
  bool releasing_anywhere_ = false;

public:
  // Operations kept or committed, in order; only committed ones reach the runtime.
  struct Op {
    enum Kind : std::uint8_t { kAllocate, kPipeline, kEvict } kind;
    TaskRef ref;
    std::int32_t prev_type = -1; // the job's type before an allocation fixed it
  };
  [[nodiscard]] const std::vector<Op>& committed() const { return committed_; }

private:
  std::vector<Op> committed_;
};

// A group of session operations that stands or falls together (framework/statement.go).
class Statement {
public:
  explicit Statement(Session& s) : s_(s) {}
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { discard(); }

  void allocate(TaskRef r, NodeId n, DeviceTypeId t); // onto idle devices
  void pipeline(TaskRef r, NodeId n, DeviceTypeId t); // onto devices being released
  // A running task gives its resources back (kube-batch's Evict: its status becomes
  // Releasing). When the session closes, a job with an evicted task is suspended whole: a
  // distributed job cannot go on without a worker. Its other tasks free their devices then,
  // and later sessions give those out.
  void evict(TaskRef r);
  // Applied to the runtime at session close.
  void commit();
  // Stays in the session (resources stay reserved for the rest of it) but is not applied: what
  // Volcano's allocate does with a job that is pipelined but not ready.
  void keep();
  // Undone, last first.
  void discard();
  // Takes over the operations of `other` (a per-node statement that worked out).
  void merge(Statement& other);
  [[nodiscard]] bool empty() const { return ops_.empty(); }
  [[nodiscard]] bool has_evictions() const;

private:
  void started() {
    if (ops_.empty()) start_version_ = s_.version_;
  }
  Session& s_;
  std::vector<Session::Op> ops_;
  std::uint64_t start_version_ = 0; // Session::version() before the first op
};

} // namespace dlsim::kb
