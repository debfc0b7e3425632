// The session snapshot, the tiered plugin decisions and statements (see session.h).
#include "policies/kube_batch/session.h"

#include "policies/kube_batch/plugin.h"

#include <algorithm>
#include <cmath>

namespace dlsim::kb {

std::uint32_t JobInfo::ready() const {
  return count(TaskStatus::kBound) + count(TaskStatus::kRunning) + count(TaskStatus::kAllocated);
}

bool JobInfo::holds_devices() const {
  return status != JobStatus::kPending && status != JobStatus::kSuspended;
}

Resources NodeInfo::used() const {
  double held = 0;
  for (std::size_t t = 0; t < capacity.size(); ++t)
    held += capacity[t] - idle[t].size();
  return Resources::of(held, cpu_total - cpu_idle, mem_total - mem_idle);
}

Resources NodeInfo::allocatable() const {
  double devices = 0;
  for (auto c : capacity)
    devices += c;
  return Resources::of(devices, cpu_total, mem_total);
}

void Session::open(const View& view, const SessionInputs& in) {
  view_ = &view;
  in_ = in;
  committed_.clear();
  gang_ready_checked_ = false;
  open_nodes(view);
  releasing_anywhere_ = false;
  future_total_ = idle_total_; // open_jobs adds what suspending jobs release; nothing is pipelined
  open_jobs(view);

  for (const Tier& tier : *in.tiers) {
    for (Plugin* p : tier.plugins) {
      if (p->options().name == "gang" && p->options().job_ready) gang_ready_checked_ = true;
      p->on_session_open(*this);
    }
  }
  // The entries built again go (back) into their groups once the plugins have read them: the
  // job order reads what the plugins keep per entry (drf's share).
  if (in.group_pending) {
    if (renumbered_) {
      for (std::size_t i = 0; i < jobs_.size(); ++i)
        group(i);
    } else {
      for (std::size_t i : rebuilt_)
        group(i);
    }
  }
}

void Session::open_nodes(const View& view) {
  const Cluster& c = view.cluster();
  const std::size_t types = c.types.size();
  bool all = false;
  if (nodes_.size() != c.nodes.size() || type_ids_.size() != types) {
    type_ids_.clear();
    for (DeviceTypeId t = 0; t < types; ++t)
      type_ids_.push_back(t);
    nodes_.assign(c.nodes.size(), NodeInfo{});
    total_ = Resources{};
    for (NodeId n = 0; n < c.nodes.size(); ++n) {
      NodeInfo& node = nodes_[n];
      const Node& spec = c.nodes[n];
      node.id = n;
      node.idle.resize(types);
      node.releasing.assign(types, 0);
      node.pipelined.assign(types, 0);
      node.capacity.assign(types, 0);
      for (DeviceId d = spec.first_device; d < spec.first_device + spec.device_count; ++d)
        ++node.capacity[c.devices[d].type];
      node.cpu_total = spec.cpu_cores;
      node.mem_total = spec.memory_gb;
      // The idle lists start empty: right for a type with no free device, and any other has
      // a free count that differs, so refresh_node scans the node.
      total_ += Resources::of(spec.device_count, spec.cpu_cores, spec.memory_gb);
    }
    idle_total_.assign(types, 0);
    seen_free_.assign(c.nodes.size() * types, 0);
    seen_cpu_.assign(c.nodes.size(), 0);
    seen_mem_.assign(c.nodes.size(), 0);
    touched_.clear();
    touched_flag_.assign(c.nodes.size(), 0);
    node_fractional_.assign(c.nodes.size(), 0);
    fractional_nodes_ = 0;
    all = true;
  }
  // The last session's own changes (releasing and pipelined counts, tasks, allocations kept or
  // discarded) are undone on the nodes it touched.
  for (NodeId n : touched_) {
    NodeInfo& node = nodes_[n];
    std::fill(node.releasing.begin(), node.releasing.end(), 0);
    std::fill(node.pipelined.begin(), node.pipelined.end(), 0);
    node.cpu_releasing = node.cpu_pipelined = 0;
    node.mem_releasing = node.mem_pipelined = 0;
    node.tasks.clear();
    refresh_node(view, n);
    touched_flag_[n] = 0;
  }
  touched_.clear();
  // Any other node differs from the snapshot only where the runtime's free devices, CPUs or
  // memory differ from what the last refresh saw, which only a node the runtime marked since the
  // last session can (View::changes): those are compared, over flat arrays, not NodeInfos.
  const FreeIndex& free = view.free();
  auto compare = [&](NodeId n) {
    bool same =
        !all && seen_cpu_[n] == view.node_cpu_free(n) && seen_mem_[n] == view.node_mem_free(n);
    for (DeviceTypeId t = 0; same && t < types; ++t)
      same = seen_free_[n * types + t] == free.free_on(n, t);
    if (!same) refresh_node(view, n);
  };
  const ChangeLog& log = view.changes().nodes;
  if (all || !log.for_each_since(nodes_stamp_, compare)) {
    for (NodeId n = 0; n < c.nodes.size(); ++n)
      compare(n);
  }
  nodes_stamp_ = log.stamp();
  node_tasks_listed_ = false;
}

void Session::list_node_tasks() {
  if (node_tasks_listed_) return;
  node_tasks_listed_ = true;
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    const JobInfo& job = jobs_[i];
    if (!job.live) continue;
    for (std::uint32_t k = 0; k < job.held_at_open; ++k) {
      const NodeId n = job.tasks[k].node;
      touch(n);
      nodes_[n].tasks.push_back(TaskRef{i, k});
    }
  }
}

void Session::refresh_node(const View& view, NodeId n) {
  const Cluster& c = view.cluster();
  const std::size_t types = type_ids_.size();
  NodeInfo& node = nodes_[n];
  const FreeIndex& free = view.free();
  bool same = true;
  for (DeviceTypeId t = 0; t < types; ++t)
    same = same && node.idle[t].size() == free.free_on(n, t);
  if (!same) {
    for (DeviceTypeId t = 0; t < types; ++t) {
      idle_total_[t] -= static_cast<std::int64_t>(node.idle[t].size());
      node.idle[t].clear();
    }
    const Node& spec = c.nodes[n];
    for (DeviceId d = spec.first_device; d < spec.first_device + spec.device_count; ++d) {
      if (view.device(d).count == 0) node.idle[c.devices[d].type].push_back(d);
    }
    for (DeviceTypeId t = 0; t < types; ++t)
      idle_total_[t] += static_cast<std::int64_t>(node.idle[t].size());
  }
  // Same free counts may be other devices (a release and a take): a new stamp all the same,
  // as for a change of free CPUs or memory.
  if (!same || node.cpu_idle != view.node_cpu_free(n) || node.mem_idle != view.node_mem_free(n) ||
      node.stamp == 0)
    restamp(node);
  node.cpu_idle = view.node_cpu_free(n);
  node.mem_idle = view.node_mem_free(n);
  // Whole numbers well below 2^53: adding and taking back whole requests is exact.
  auto whole = [](double x) { return x == std::floor(x) && std::fabs(x) < 1e12; };
  const char fractional = whole(node.cpu_idle) && whole(node.mem_idle) ? 0 : 1;
  if (fractional != node_fractional_[n]) {
    if (fractional != 0) {
      ++fractional_nodes_;
    } else {
      --fractional_nodes_;
    }
    node_fractional_[n] = fractional;
  }
  for (DeviceTypeId t = 0; t < types; ++t)
    seen_free_[n * types + t] = free.free_on(n, t);
  seen_cpu_[n] = node.cpu_idle;
  seen_mem_[n] = node.mem_idle;
}

void Session::open_jobs(const View& view) {
  rebuilt_.clear();
  renumbered_ = false;
  if (queue_sums_.size() != in_.queues->size()) {
    queue_sums_.assign(in_.queues->size(), QueueSums{});
    pending_.assign(in_.queues->size(), {});
  }
  if (slot_of_.size() < view.job_count()) slot_of_.resize(view.job_count(), kNoSlot);
  // The entries the last session's ops changed, then those of the jobs the runtime marked.
  for (std::size_t i : dirty_)
    check_job(view, i);
  dirty_.clear();
  const ChangeLog& log = view.changes().jobs;
  const bool marked = log.for_each_since(jobs_stamp_, [&](JobId j) {
    if (j < slot_of_.size() && slot_of_[j] != kNoSlot) check_job(view, slot_of_[j]);
  });
  if (!marked) {
    for (std::size_t i = 0; i < jobs_.size(); ++i)
      check_job(view, i);
  }
  jobs_stamp_ = log.stamp();
  // Ids are given in submission order: an arrival goes at the end (else compact() sorts).
  bool in_order = true;
  for (JobId j : *in_.arrivals) {
    if (!is_live(view.state(j).status)) continue;
    in_order = in_order && (jobs_.empty() || jobs_.back().id < j);
    const std::size_t i = jobs_.size();
    jobs_.emplace_back();
    jobs_[i].index = i;
    jobs_[i].inqueue = !in_.enqueue_action;
    slot_of_[j] = static_cast<std::uint32_t>(i);
    rebuild_job(view, i, j);
  }
  if (!in_order || (dead_ > 64 && 2 * dead_ > jobs_.size())) compact();

  // What suspending jobs release, in job order (the CPU and memory sums are floating point).
  std::erase_if(suspending_, [&](std::size_t i) {
    JobInfo& job = jobs_[i];
    const bool keep = job.live && job.status == JobStatus::kSuspending;
    job.listed_suspending = keep;
    return !keep;
  });
  std::sort(suspending_.begin(), suspending_.end());
  for (std::size_t i : suspending_) {
    const JobInfo& job = jobs_[i];
    releasing_anywhere_ = releasing_anywhere_ || job.held_at_open > 0;
    for (std::uint32_t k = 0; k < job.held_at_open; ++k)
      count_releasing(job, job.tasks[k]);
  }
}

void Session::count_releasing(const JobInfo& job, const TaskInfo& task) {
  NodeInfo& node = nodes_[task.node];
  touch(task.node);
  node.releasing[task.type] += job.devices_per_task;
  future_total_[task.type] += job.devices_per_task;
  node.cpu_releasing += job.task_req.v[1];
  node.mem_releasing += job.task_req.v[2];
}

void Session::check_job(const View& view, std::size_t i) {
  JobInfo& job = jobs_[i];
  if (!job.live) return;
  const JobState& st = view.state(job.id);
  if (!is_live(st.status)) {
    ungroup(job);
    if (job.counted) count_terms(job, -1);
    job.live = false;
    ++dead_;
    file_pending(i);
    slot_of_[job.id] = kNoSlot;
    return;
  }
  // Unchanged since (the runtime's generation and status, and no session op on it): the
  // entry is what building it again would give.
  if (job.changed || job.generation != st.generation || job.status != st.status)
    rebuild_job(view, i, job.id);
}

void Session::rebuild_job(const View& view, std::size_t i, JobId j) {
  JobInfo& job = jobs_[i];
  ungroup(job); // before its rank changes
  if (job.counted) count_terms(job, -1);
  build_job(view, job, j);
  job.ordered_at = 0; // its place in the job order is found again
  count_terms(job, 1);
  file_pending(i);
  if (job.status == JobStatus::kSuspending && !job.listed_suspending) {
    job.listed_suspending = true;
    suspending_.push_back(i);
  }
  rebuilt_.push_back(i);
}

void Session::compact() {
  // The groups' sets hold entry indices: emptied here, filled again after the plugins' open.
  for (JobGroup& g : groups_)
    g.jobs.clear();
  for (JobInfo& job : jobs_)
    job.group = -1;
  std::size_t out = 0;
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    if (!jobs_[i].live) continue;
    if (out != i) std::swap(jobs_[out], jobs_[i]);
    ++out;
  }
  jobs_.resize(out);
  std::stable_sort(jobs_.begin(), jobs_.end(),
                   [](const JobInfo& a, const JobInfo& b) { return a.id < b.id; });
  dead_ = 0;
  for (auto& list : pending_)
    list.clear();
  suspending_.clear();
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    JobInfo& job = jobs_[i];
    job.index = i;
    slot_of_[job.id] = static_cast<std::uint32_t>(i);
    job.pending_pos = -1;
    file_pending(i);
    if (job.listed_suspending) suspending_.push_back(i);
  }
  renumbered_ = true;
  // The kept order's indices are stale: no entry counts as placed by it.
  for (auto& list : order_)
    list.clear();
  ++order_epoch_;
}

const std::vector<std::vector<std::size_t>>&
Session::pending_in_order(const std::function<bool(const JobInfo&)>& keep) {
  const std::uint64_t last = order_epoch_;
  const std::uint64_t now = ++order_epoch_;
  order_.resize(pending_.size());
  auto less = [this](std::size_t a, std::size_t b) { return job_less(jobs_[a], jobs_[b]); };
  for (std::size_t q = 0; q < pending_.size(); ++q) {
    // Unchanged since the last order (placed by it, not built again, not changed by an op of
    // this session): the same relative order. Any other is sorted and placed among them.
    auto placed = [&](const JobInfo& j) { return j.ordered_at == last && !j.changed; };
    kept_.clear();
    for (std::size_t i : order_[q]) {
      const JobInfo& j = jobs_[i];
      if (j.live && j.pending() > 0 && placed(j) && keep(j)) kept_.push_back(i);
    }
    fresh_.clear();
    for (std::size_t i : pending_[q]) {
      const JobInfo& j = jobs_[i];
      if (!placed(j) && keep(j)) fresh_.push_back(i);
    }
    std::sort(fresh_.begin(), fresh_.end(), less); // a total order: ties end at the id
    std::vector<std::size_t>& out = order_[q];
    out.clear();
    auto from = kept_.begin();
    for (std::size_t f : fresh_) {
      auto at = std::upper_bound(from, kept_.end(), f, less);
      out.insert(out.end(), from, at);
      out.push_back(f);
      from = at;
    }
    out.insert(out.end(), from, kept_.end());
    for (std::size_t i : out)
      jobs_[i].ordered_at = now;
  }
  return order_;
}

bool ByJobOrder::operator()(std::size_t a, std::size_t b) const {
  return s->job_less(s->job(a), s->job(b));
}

void Session::group(std::size_t i) {
  JobInfo& job = jobs_[i];
  if (job.group >= 0 || !job.live || job.pending() == 0) return;
  // Plain: no task held or given devices at open, so none is ready or pipelined and the job may
  // use any of its compatible types (see allocate.cpp, allocate_grouped).
  const bool plain = job.held_at_open == 0 && job.type < 0 && job.pending() == job.tasks.size();
  const auto tasks = static_cast<std::uint32_t>(job.tasks.size());
  const std::uint32_t suspended = job.status == JobStatus::kSuspended ? 1 : 0;
  const GroupKey key = plain ? GroupKey{job.queue, shape_of(job), job.min_member, tasks, suspended}
                             : GroupKey{job.queue, kOtherJobs, 0, 0, 0};
  auto [it, fresh] = group_ids_.try_emplace(key, static_cast<std::uint32_t>(groups_.size()));
  if (fresh) {
    groups_.push_back(JobGroup{key[0], key[1], JobSet(ByJobOrder{this})});
    if (groups_of_queue_.size() <= job.queue) groups_of_queue_.resize(job.queue + 1);
    groups_of_queue_[job.queue].push_back(it->second);
  }
  job.group = static_cast<std::int32_t>(it->second);
  job.group_at = groups_[it->second].jobs.insert(i).first;
}

void Session::ungroup(JobInfo& job) {
  if (job.group < 0) return;
  // By iterator: no comparison, so an entry whose rank is about to change can leave.
  groups_[static_cast<std::size_t>(job.group)].jobs.erase(job.group_at);
  job.group = -1;
}

void Session::file_pending(std::size_t i) {
  JobInfo& job = jobs_[i];
  const bool want = job.live && job.pending() > 0;
  if (want == (job.pending_pos >= 0)) return;
  auto& list = pending_[job.queue];
  if (want) {
    job.pending_pos = static_cast<std::int64_t>(list.size());
    list.push_back(i);
    return;
  }
  const auto pos = static_cast<std::size_t>(job.pending_pos);
  list[pos] = list.back();
  jobs_[list[pos]].pending_pos = static_cast<std::int64_t>(pos);
  list.pop_back();
  job.pending_pos = -1;
}

void Session::count_terms(JobInfo& job, double sign) {
  QueueSums& q = queue_sums_[job.queue];
  if (sign > 0) {
    ++q.jobs;
    job.counted = true;
    job.counted_inqueue = job.inqueue;
    if (!job.whole) {
      ++inexact_;
      return;
    }
  } else {
    --q.jobs;
    job.counted = false;
    if (!job.whole) {
      --inexact_;
      return;
    }
  }
  // Whole numbers: exact whichever order they are added and taken back in.
  q.held += job.held * sign;
  q.asked += job.asked * sign;
  q.above_min += job.above_min * sign;
  if (job.counted_inqueue) q.inqueue_below_min += job.below_min * sign;
}

void Session::build_job(const View& view, JobInfo& job, JobId j) {
  const Cluster& c = view.cluster();
  const JobState& st = view.state(j);
  const JobRequest& r = view.request(j);
  const RequestDetails& rd = view.details(j);
  job.id = j;
  job.generation = st.generation;
  job.changed = false;
  job.queue = (*in_.queue_of_trace_queue)[r.queue];
  job.priority = r.priority;
  job.created = r.submit;
  job.status = st.status;
  // The gang: the requested workers unless asked to start elastic jobs at their minimum (this
  // policy never grows a started job, so a job started at its minimum stays there).
  job.min_member = in_.elastic_at_min ? r.min_workers : r.workers;
  job.devices_per_task = r.devices_per_worker;
  job.task_req = Resources::of(r.devices_per_worker, rd.cpus_per_worker, rd.mem_gb_per_worker);
  job.gpu_mem_gb = rd.gpu_mem_gb;
  job.compatible = view.compatible_types(j);
  job.type = -1;
  job.counts = {};
  const std::uint32_t dpw = r.devices_per_worker;
  const auto held = static_cast<std::uint32_t>(st.devices.size() / dpw);
  TaskStatus holding = TaskStatus::kRunning;
  switch (st.status) {
  case JobStatus::kBinding:
  case JobStatus::kMigrating:
  case JobStatus::kResizing:
    holding = TaskStatus::kBound;
    break;
  case JobStatus::kSuspending:
    holding = TaskStatus::kReleasing;
    break;
  default:
    break;
  }
  // A pending, suspended or binding job asks for all its workers; a started one has the
  // workers it was given (an elastic job is not grown by this policy).
  std::uint32_t n_tasks =
      job.holds_devices() && st.status != JobStatus::kBinding ? held : std::max(r.workers, held);
  // Reused TaskInfos keep their device vectors' storage.
  job.tasks.resize(n_tasks);
  for (TaskInfo& task : job.tasks) {
    task.status = TaskStatus::kPending;
    task.node = 0;
    task.type = 0;
    task.devices.clear();
  }
  job.counts[static_cast<int>(TaskStatus::kPending)] = n_tasks;
  job.held_at_open = held;
  if (held > 0) job.type = static_cast<std::int32_t>(st.type);
  for (std::uint32_t k = 0; k < held; ++k) {
    TaskInfo& task = job.tasks[k];
    set_status(job, task, holding);
    const auto first = static_cast<std::ptrdiff_t>(k) * dpw;
    task.devices.assign(st.devices.begin() + first, st.devices.begin() + first + dpw);
    task.node = c.devices[task.devices[0]].node;
    task.type = st.type;
  }
  job.held = job.task_req * (job.count(TaskStatus::kBound) + job.count(TaskStatus::kRunning));
  job.held_share = dominant_share(job.held, total_);
  job.asked = job.held + job.task_req * job.pending();
  job.below_min = exceeded_part(job.min_resources(), job.held);
  job.above_min = exceeded_part(job.held, job.min_resources());
  // Whole CPUs and GB (devices always are), small enough that sums of them stay exact.
  auto whole = [](double x) { return x == std::floor(x) && std::fabs(x) < 1e9; };
  job.whole = whole(job.task_req.v[1]) && whole(job.task_req.v[2]);
}

Session::~Session() = default;

void Session::set_status(JobInfo& job, TaskInfo& task, TaskStatus s) {
  --job.counts[static_cast<int>(task.status)];
  ++job.counts[static_cast<int>(s)];
  task.status = s;
}

// ---- tiered decisions ------------------------------------------------------------------------

bool Session::job_less(const JobInfo& l, const JobInfo& r) const {
  for (const Tier& tier : *in_.tiers) {
    for (const Plugin* p : tier.plugins) {
      if (!p->options().job_order) continue;
      if (auto c = p->job_order(*this, l, r); c && *c != 0) return *c < 0;
    }
  }
  // No plugin tells them apart: creation time, then id (kube-batch: CreationTimestamp, UID).
  if (l.created != r.created) return l.created < r.created;
  return l.id < r.id;
}

bool Session::queue_less(std::uint32_t l, std::uint32_t r) const {
  for (const Tier& tier : *in_.tiers) {
    for (const Plugin* p : tier.plugins) {
      if (!p->options().queue_order) continue;
      if (auto c = p->queue_order(*this, l, r); c && *c != 0) return *c < 0;
    }
  }
  return l < r; // the order the queues were declared in (their creation order)
}

bool Session::task_less(TaskRef l, TaskRef r) const {
  for (const Tier& tier : *in_.tiers) {
    for (const Plugin* p : tier.plugins) {
      if (!p->options().task_order) continue;
      if (auto c = p->task_order(*this, l, r); c && *c != 0) return *c < 0;
    }
  }
  const JobInfo& a = jobs_[l.job];
  const JobInfo& b = jobs_[r.job];
  if (a.created != b.created) return a.created < b.created;
  if (a.id != b.id) return a.id < b.id;
  return l.task < r.task;
}

bool Session::job_ready(const JobInfo& j) const {
  for (const Tier& tier : *in_.tiers) {
    for (const Plugin* p : tier.plugins) {
      if (!p->options().job_ready) continue;
      if (auto ok = p->job_ready(*this, j); ok && !*ok) return false;
    }
  }
  // The runtime resumes a suspended job whole: it is never bound pod by pod.
  if (j.status == JobStatus::kSuspended && j.ready() < j.min_member) return false;
  return true;
}

bool Session::job_pipelined(const JobInfo& j) const {
  for (const Tier& tier : *in_.tiers) {
    bool permit = false;
    for (const Plugin* p : tier.plugins) {
      if (!p->options().job_pipelined) continue;
      auto res = p->job_pipelined(*this, j);
      if (!res) continue;
      if (*res < 0) return false;
      if (*res > 0) permit = true;
    }
    if (permit) return true;
  }
  return true;
}

bool Session::job_starving(const JobInfo& j) const {
  for (const Tier& tier : *in_.tiers) {
    bool found = false;
    for (const Plugin* p : tier.plugins) {
      if (!p->options().job_starving) continue;
      auto res = p->job_starving(*this, j);
      if (!res) continue;
      found = true;
      if (!*res) return false;
    }
    if (found) return true;
  }
  return false;
}

bool Session::job_enqueueable(const JobInfo& j) const {
  for (const Tier& tier : *in_.tiers) {
    bool permit = false;
    for (const Plugin* p : tier.plugins) {
      if (!p->options().job_enqueued) continue;
      auto res = p->job_enqueueable(*this, j);
      if (!res) continue;
      if (*res < 0) return false;
      if (*res > 0) permit = true;
    }
    if (permit) return true;
  }
  return true;
}

void Session::job_enqueued(JobInfo& j) {
  j.inqueue = true;
  mark_changed(j); // its terms count in the queue's inqueue sum from the next session on
  for (const Tier& tier : *in_.tiers) {
    for (Plugin* p : tier.plugins) {
      if (p->options().job_enqueued) p->on_job_enqueued(*this, j);
    }
  }
}

bool Session::overused(std::uint32_t queue) const {
  for (const Tier& tier : *in_.tiers) {
    for (const Plugin* p : tier.plugins) {
      if (!p->options().overused) continue;
      if (auto res = p->overused(*this, queue); res && *res) return true;
    }
  }
  return false;
}

bool Session::allocatable(std::uint32_t queue, const JobInfo& j) const {
  for (const Tier& tier : *in_.tiers) {
    for (const Plugin* p : tier.plugins) {
      if (!p->options().allocatable) continue;
      if (auto res = p->allocatable(*this, queue, j); res && !*res) return false;
    }
  }
  return true;
}

bool Session::preemptive(std::uint32_t queue, const JobInfo& j) const {
  for (const Tier& tier : *in_.tiers) {
    for (const Plugin* p : tier.plugins) {
      if (!p->options().preemptive) continue;
      if (auto res = p->preemptive(*this, queue, j); res && !*res) return false;
    }
  }
  return true;
}

namespace {

// Volcano's Preemptable / Reclaimable: in each tier, the victims every plugin agrees on; a plugin
// that finds none ends the tier without a decision, and the next tier decides.
template <class Fn>
std::vector<TaskRef> tiered_victims(const std::vector<Tier>& tiers, bool PluginOptions::*enabled,
                                    Fn ask) {
  for (const Tier& tier : tiers) {
    std::optional<std::vector<TaskRef>> victims;
    for (const Plugin* p : tier.plugins) {
      if (!(p->options().*enabled)) continue;
      auto cands = ask(*p);
      if (!cands) continue;
      if (cands->empty()) {
        victims.reset();
        break;
      }
      if (!victims) {
        victims = std::move(*cands);
        continue;
      }
      std::vector<TaskRef> both;
      for (const TaskRef& v : *victims) {
        if (std::find(cands->begin(), cands->end(), v) != cands->end()) both.push_back(v);
      }
      victims = std::move(both);
    }
    if (victims && !victims->empty()) return *victims;
  }
  return {};
}

} // namespace

std::vector<TaskRef> Session::preemptable(TaskRef preemptor,
                                          const std::vector<TaskRef>& cands) const {
  return tiered_victims(*in_.tiers, &PluginOptions::preemptable,
                        [&](const Plugin& p) { return p.preemptable(*this, preemptor, cands); });
}

std::vector<TaskRef> Session::reclaimable(TaskRef reclaimer,
                                          const std::vector<TaskRef>& cands) const {
  return tiered_victims(*in_.tiers, &PluginOptions::reclaimable,
                        [&](const Plugin& p) { return p.reclaimable(*this, reclaimer, cands); });
}

bool Session::predicate(const JobInfo& j, const NodeInfo& n, DeviceTypeId t) const {
  for (const Tier& tier : *in_.tiers) {
    for (const Plugin* p : tier.plugins) {
      if (!p->options().predicate) continue;
      if (auto ok = p->predicate(*this, j, n, t); ok && !*ok) return false;
    }
  }
  return true;
}

double Session::node_score(const JobInfo& j, const NodeInfo& n, DeviceTypeId t) const {
  double score = 0;
  for (const Tier& tier : *in_.tiers) {
    for (const Plugin* p : tier.plugins) {
      if (!p->options().node_order) continue;
      if (auto s = p->node_score(*this, j, n, t)) score += *s;
    }
  }
  return score;
}

// ---- resources -------------------------------------------------------------------------------

std::span<const DeviceTypeId> Session::allowed_types(const JobInfo& j) const {
  // A job that holds devices keeps their type. A span, not a vector: this runs for every job
  // and node of every session.
  if (j.type >= 0)
    return std::span<const DeviceTypeId>(type_ids_).subspan(static_cast<std::size_t>(j.type), 1);
  return j.compatible;
}

std::int32_t Session::fit_type(const JobInfo& j, const NodeInfo& n, bool future) const {
  const double cpu = n.cpu_idle + (future ? n.cpu_releasing - n.cpu_pipelined : 0);
  const double mem = n.mem_idle + (future ? n.mem_releasing - n.mem_pipelined : 0);
  // Host CPUs and memory: the same test as the runtime's (a request of 0 always fits).
  if (j.task_req.v[1] > cpu + kEps || j.task_req.v[2] > mem + kEps) return -1;
  for (DeviceTypeId t : allowed_types(j)) {
    std::int64_t avail = future ? n.future_idle(t) : static_cast<std::int64_t>(n.idle[t].size());
    if (avail < j.devices_per_task) continue;
    if (!predicate(j, n, t)) continue;
    return static_cast<std::int32_t>(t);
  }
  return -1;
}

std::uint32_t Session::shape_of(const JobInfo& j) {
  auto types = allowed_types(j);
  for (std::size_t i = 0; i < shapes_.size(); ++i) {
    const Shape& sh = shapes_[i];
    if (sh.request.v == j.task_req.v && sh.gpu_mem_gb == j.gpu_mem_gb &&
        std::equal(sh.types.begin(), sh.types.end(), types.begin(), types.end()))
      return static_cast<std::uint32_t>(i);
  }
  shapes_.push_back(Shape{{types.begin(), types.end()}, j.task_req, j.gpu_mem_gb});
  fits_.emplace_back();
  shape_nodes_.emplace_back();
  return static_cast<std::uint32_t>(shapes_.size() - 1);
}

Session::IdleFit Session::idle_fit(const JobInfo& j, std::uint32_t shape, const NodeInfo& n) {
  auto& fits = fits_[shape];
  if (fits.size() != nodes_.size()) fits.assign(nodes_.size(), CachedFit{});
  CachedFit& c = fits[n.id];
  if (c.stamp == n.stamp) return c.fit;
  c.stamp = n.stamp;
  c.fit.type = fit_type(j, n, false);
  c.fit.score = c.fit.type < 0 ? 0 : node_score(j, n, static_cast<DeviceTypeId>(c.fit.type));
  return c.fit;
}

void Session::restamp(NodeInfo& n) {
  n.stamp = ++stamp_;
  if (restamped_.size() >= 4 * nodes_.size() + 1024) {
    restamped_base_ += restamped_.size();
    restamped_.clear();
  }
  restamped_.push_back(n.id);
}

std::pair<std::int64_t, DeviceTypeId> Session::best_idle_node(const JobInfo& j,
                                                              std::uint32_t shape) {
  auto& fits = fits_[shape];
  if (fits.size() != nodes_.size()) fits.assign(nodes_.size(), CachedFit{});
  ShapeNodes& sn = shape_nodes_[shape];
  auto update = [&](NodeId n) {
    const NodeInfo& node = nodes_[n];
    CachedFit& c = fits[n];
    if (c.listed_stamp == node.stamp) return;
    const IdleFit f = idle_fit(j, shape, node);
    if (c.listed) sn.order.erase({c.listed_score, n});
    c.listed = f.type >= 0;
    c.listed_score = f.score;
    c.listed_stamp = node.stamp;
    if (c.listed) sn.order.emplace(f.score, n);
  };
  if (!sn.built || sn.seen < restamped_base_) {
    for (NodeId n = 0; n < nodes_.size(); ++n)
      update(n);
    sn.built = true;
  } else {
    for (std::size_t i = sn.seen - restamped_base_; i < restamped_.size(); ++i)
      update(restamped_[i]);
  }
  sn.seen = restamped_base_ + restamped_.size();
  if (sn.order.empty()) return {-1, 0};
  const NodeId best = sn.order.begin()->second;
  return {best, static_cast<DeviceTypeId>(fits[best].fit.type)};
}

std::uint32_t Session::room_for(const JobInfo& j) const {
  std::int64_t room = 0;
  for (DeviceTypeId t : allowed_types(j))
    room += std::max<std::int64_t>(0, future_total_[t]) / j.devices_per_task;
  return static_cast<std::uint32_t>(room);
}

std::int32_t Session::node_type(const JobInfo& j, const NodeInfo& n) const {
  for (DeviceTypeId t : allowed_types(j)) {
    if (n.capacity[t] >= j.devices_per_task && predicate(j, n, t))
      return static_cast<std::int32_t>(t);
  }
  return -1;
}

void Session::do_allocate(TaskRef r, NodeId n, DeviceTypeId t, bool pipelined) {
  JobInfo& job = jobs_[r.job];
  mark_changed(job);
  new_version();
  TaskInfo& task = job.tasks[r.task];
  NodeInfo& node = nodes_[n];
  job.type = static_cast<std::int32_t>(t);
  task.node = n;
  task.type = t;
  touch(n);
  const std::uint32_t dpw = job.devices_per_task;
  future_total_[t] -= dpw;
  if (pipelined) {
    node.pipelined[t] += dpw;
    node.cpu_pipelined += job.task_req.v[1];
    node.mem_pipelined += job.task_req.v[2];
    set_status(job, task, TaskStatus::kPipelined);
  } else {
    auto& idle = node.idle[t];
    task.devices.assign(idle.begin(), idle.begin() + dpw); // the lowest free ids
    idle.erase(idle.begin(), idle.begin() + dpw);
    idle_total_[t] -= dpw;
    node.cpu_idle -= job.task_req.v[1];
    node.mem_idle -= job.task_req.v[2];
    restamp(node);
    set_status(job, task, TaskStatus::kAllocated);
  }
  file_pending(r.job);
  for (const Tier& tier : *in_.tiers) {
    for (Plugin* p : tier.plugins)
      p->on_allocate(*this, job);
  }
}

void Session::undo_allocate(TaskRef r) {
  JobInfo& job = jobs_[r.job];
  mark_changed(job);
  new_version();
  TaskInfo& task = job.tasks[r.task];
  NodeInfo& node = nodes_[task.node];
  touch(task.node);
  const std::uint32_t dpw = job.devices_per_task;
  future_total_[task.type] += dpw;
  if (task.status == TaskStatus::kPipelined) {
    node.pipelined[task.type] -= dpw;
    node.cpu_pipelined -= job.task_req.v[1];
    node.mem_pipelined -= job.task_req.v[2];
  } else {
    auto& idle = node.idle[task.type];
    idle.insert(idle.end(), task.devices.begin(), task.devices.end());
    std::sort(idle.begin(), idle.end());
    idle_total_[task.type] += dpw;
    node.cpu_idle += job.task_req.v[1];
    node.mem_idle += job.task_req.v[2];
    restamp(node);
  }
  set_status(job, task, TaskStatus::kPending);
  file_pending(r.job);
  task.devices.clear();
  for (const Tier& tier : *in_.tiers) {
    for (Plugin* p : tier.plugins)
      p->on_deallocate(*this, job);
  }
}

void Session::do_evict(TaskRef r) {
  JobInfo& job = jobs_[r.job];
  mark_changed(job);
  new_version();
  TaskInfo& task = job.tasks[r.task];
  set_status(job, task, TaskStatus::kReleasing);
  releasing_anywhere_ = true;
  count_releasing(job, task);
  for (const Tier& tier : *in_.tiers) {
    for (Plugin* p : tier.plugins)
      p->on_deallocate(*this, job);
  }
}

void Session::undo_evict(TaskRef r) {
  JobInfo& job = jobs_[r.job];
  mark_changed(job);
  new_version();
  TaskInfo& task = job.tasks[r.task];
  set_status(job, task, TaskStatus::kRunning);
  NodeInfo& node = nodes_[task.node];
  touch(task.node);
  node.releasing[task.type] -= job.devices_per_task;
  future_total_[task.type] -= job.devices_per_task;
  node.cpu_releasing -= job.task_req.v[1];
  node.mem_releasing -= job.task_req.v[2];
  for (const Tier& tier : *in_.tiers) {
    for (Plugin* p : tier.plugins)
      p->on_allocate(*this, job);
  }
}

// ---- statements ------------------------------------------------------------------------------

void Statement::allocate(TaskRef r, NodeId n, DeviceTypeId t) {
  started();
  ops_.push_back({Session::Op::kAllocate, r, s_.jobs_[r.job].type});
  s_.do_allocate(r, n, t, false);
}

void Statement::pipeline(TaskRef r, NodeId n, DeviceTypeId t) {
  started();
  ops_.push_back({Session::Op::kPipeline, r, s_.jobs_[r.job].type});
  s_.do_allocate(r, n, t, true);
}

void Statement::evict(TaskRef r) {
  started();
  ops_.push_back({Session::Op::kEvict, r, -1});
  s_.do_evict(r);
}

void Statement::commit() {
  s_.committed_.insert(s_.committed_.end(), ops_.begin(), ops_.end());
  ops_.clear();
}

void Statement::keep() {
  ops_.clear();
}

void Statement::discard() {
  if (ops_.empty()) return;
  for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
    if (it->kind == Session::Op::kEvict) {
      s_.undo_evict(it->ref);
    } else {
      s_.undo_allocate(it->ref);
      s_.jobs_[it->ref.job].type = it->prev_type;
    }
  }
  ops_.clear();
  // The state is the one the statement started from, bit for bit (Session::exact_undo).
  if (s_.exact_undo()) s_.version_ = start_version_;
}

void Statement::merge(Statement& other) {
  if (ops_.empty()) start_version_ = other.start_version_;
  ops_.insert(ops_.end(), other.ops_.begin(), other.ops_.end());
  other.ops_.clear();
}

bool Statement::has_evictions() const {
  return std::any_of(ops_.begin(), ops_.end(),
                     [](const Session::Op& op) { return op.kind == Session::Op::kEvict; });
}

} // namespace dlsim::kb
