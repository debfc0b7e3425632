// The policy's actions: validation (nothing over-committed, gangs whole, right device type,
// node CPUs and memory) and their application with modeled costs.
#include "sim/cluster/fit.h"
#include "sim/engine/error.h"
#include "sim/runtime/ps_placement.h"
#include "sim/runtime/rate_model.h"
#include "sim/runtime/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <span>
#include <utility>
#include <vector>

namespace dlsim {
namespace {

constexpr std::size_t kInlineDevices = 16;

// Workers per node of an allocation, in node order (what a std::map<NodeId, int> gave), kept in
// place up to kInlineNodes nodes and on the heap past that.
class NodeCounts {
public:
  void add(NodeId n) {
    for (std::size_t k = 0; k < size_; ++k) {
      if (at(k).first == n) {
        ++at(k).second;
        return;
      }
    }
    if (size_ < inline_.size()) {
      inline_[size_] = {n, 1};
    } else {
      if (heap_.empty()) heap_.assign(inline_.begin(), inline_.end());
      heap_.emplace_back(n, 1);
    }
    ++size_;
  }
  [[nodiscard]] int of(NodeId n) const {
    for (std::size_t k = 0; k < size_; ++k) {
      if (at(k).first == n) return at(k).second;
    }
    return 0;
  }
  // The counts sorted by node.
  std::span<const std::pair<NodeId, int>> by_node() {
    std::pair<NodeId, int>* first = heap_.empty() ? inline_.data() : heap_.data();
    std::sort(first, first + size_);
    return {first, size_};
  }

private:
  static constexpr std::size_t kInlineNodes = 8;
  std::pair<NodeId, int>& at(std::size_t k) { return heap_.empty() ? inline_[k] : heap_[k]; }
  [[nodiscard]] const std::pair<NodeId, int>& at(std::size_t k) const {
    return heap_.empty() ? inline_[k] : heap_[k];
  }
  std::array<std::pair<NodeId, int>, kInlineNodes> inline_{};
  std::vector<std::pair<NodeId, int>> heap_;
  std::size_t size_ = 0;
};

} // namespace

void Simulation::refuse(JobId j, const std::string& action, const std::string& reason) const {
  throw ActionError(fmt::format("policy '{}': job '{}': {} refused at t={}s: {}", info_.name,
                                s_.workload->job_names[j], action, to_seconds(s_.now), reason));
}

void Simulation::check_count(JobId j, std::uint64_t count, std::uint32_t most,
                             const std::string& action) const {
  if (count >= most) {
    refuse(j, action,
           fmt::format("the job has had {} of them, the most that dlsim counts per job", count));
  }
}

std::optional<std::string> Simulation::check_place(JobId j, std::span<const DeviceId> devices,
                                                   Sharing sharing, std::span<const DeviceId> own,
                                                   double slice_s) const {
  const JobRequest& req = s_.workload->jobs[j].request;
  const RequestDetails& rd = s_.details_of(j);
  auto why =
      check_place_workers(j, devices, sharing, own, req.min_workers, req.max_workers, slice_s);
  if (why || !holds_ps_cores(req)) return why;
  // The shards' cores on the workers' nodes (ps_placement.h): a fresh placement at the request's
  // cores, a move at the job's cores now.
  const bool moving = !own.empty();
  return check_ps_cores(View(s_, true, true), j, devices, s_.ps(j),
                        moving ? s_.ps_cores(j) : req.ps_cpus,
                        moving ? s_.worker_cores(j) : rd.cpus_per_worker, moving);
}

std::optional<std::string>
Simulation::check_place_workers(JobId j, std::span<const DeviceId> devices, Sharing sharing,
                                std::span<const DeviceId> own, std::uint32_t min_workers,
                                std::uint32_t max_workers, double slice_s) const {
  const Cluster& c = *s_.cluster;
  const JobRequest& req = s_.workload->jobs[j].request;
  const RequestDetails& rd = s_.details_of(j);
  const std::uint32_t dpw = req.devices_per_worker;
  if (dpw == 0) return "a host task holds no devices (docs/runtime.md#host-tasks)";
  if (devices.empty()) return "no devices given";
  if (devices.size() % dpw != 0) {
    return fmt::format("{} devices is not a whole number of workers of {} devices", devices.size(),
                       dpw);
  }
  auto workers = static_cast<std::uint32_t>(devices.size() / dpw);
  if (workers < min_workers || workers > max_workers) {
    if (min_workers == max_workers) {
      return fmt::format("gang of {} workers broken: {} given", min_workers, workers);
    }
    return fmt::format("{} workers is outside the job's elastic range [{}, {}]", workers,
                       min_workers, max_workers);
  }
  // The common start (a few devices on one or two nodes) checks without a heap allocation: a
  // vector and two maps per start were a few percent of a million-job FIFO replay.
  std::array<DeviceId, kInlineDevices> inline_sorted{};
  std::vector<DeviceId> heap_sorted;
  std::span<DeviceId> sorted;
  if (devices.size() <= inline_sorted.size()) {
    std::copy(devices.begin(), devices.end(), inline_sorted.begin());
    sorted = std::span<DeviceId>(inline_sorted.data(), devices.size());
  } else {
    heap_sorted.assign(devices.begin(), devices.end());
    sorted = heap_sorted;
  }
  std::sort(sorted.begin(), sorted.end());
  if (sorted.back() >= c.devices.size())
    return fmt::format("device {} does not exist", sorted.back());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    return "a device is listed twice";
  DeviceTypeId type = c.devices[devices[0]].type;
  if (req.device_type >= 0 && type != req.device_type) {
    return fmt::format("device {} is a {}, the job requires {}", devices[0], c.types[type].name,
                       c.types[req.device_type].name);
  }
  if (req.device_type == kAnyGpu && c.types[type].kind != DeviceKind::kGpu) {
    return fmt::format("device {} is a {}, not a GPU", devices[0], c.types[type].name);
  }
  if (req.device_type == kTypeSet) {
    const auto& set = s_.workload->type_sets[req.type_set];
    if (std::find(set.begin(), set.end(), type) == set.end())
      return fmt::format("device {} is a {}, not one of the job's types", devices[0],
                         c.types[type].name);
  }
  if (!s_.workload->perf.supports(req.model, type)) {
    return fmt::format("device {} is a {}, on which the job's model cannot train", devices[0],
                       c.types[type].name);
  }
  NodeCounts workers_on_node; // small: one entry per node of the allocation
  for (std::size_t i = 0; i < devices.size(); ++i) {
    DeviceId d = devices[i];
    if (c.devices[d].type != type) {
      return fmt::format("devices {} and {} are of different types", devices[0], d);
    }
    if (c.devices[d].node != c.devices[devices[i - i % dpw]].node) {
      return fmt::format("worker {} spans nodes {} and {}", i / dpw,
                         c.devices[devices[i - i % dpw]].node, c.devices[d].node);
    }
    if (i % dpw == 0) workers_on_node.add(c.devices[d].node);
    if (double cap = c.type_of(d).memory_gb; cap > 0 && !fits_in(rd.gpu_mem_gb, cap)) {
      return fmt::format("device {} ({}) has {} GB of memory, the job's model needs {} GB", d,
                         c.type_of(d).name, cap, rd.gpu_mem_gb);
    }
    if (!s_.failures.down.empty() && s_.failures.down[d] > 0)
      return fmt::format("device {} is down (failed, not yet repaired)", d);
    bool mine = std::find(own.begin(), own.end(), d) != own.end();
    if (mine) continue;
    const DeviceSlot& slot = s_.slots[d];
    if (slot.count == 0) continue;
    if (sharing == Sharing::kExclusive) {
      return fmt::format("device {} is in use by job '{}'", d,
                         s_.workload->job_names[slot.jobs[0]]);
    }
    if (sharing == Sharing::kSlice) {
      if (slot.sliced != slot.count) {
        return fmt::format("device {} holds jobs that do not take turns (started or packed)", d);
      }
      if (slot.count >= s_.config.max_timeslice_jobs) {
        return fmt::format("device {} already has {} jobs taking turns (max_timeslice_jobs = {})",
                           d, slot.count, s_.config.max_timeslice_jobs);
      }
      if (slot.slice_s != slice_s) {
        return fmt::format("device {} is sliced every {} s, not {} s", d, slot.slice_s, slice_s);
      }
      continue; // time-sliced jobs are swapped out in turn: their memory is not summed
    }
    if (slot.sliced > 0) return fmt::format("device {} is time-sliced: pack cannot join it", d);
    // Only packed jobs share: a device held by a job placed with start (or bound, resumed) is
    // that job's alone.
    for (unsigned k = 0; k < slot.count; ++k) {
      if (!s_.jobs[slot.jobs[k]].packed) {
        return fmt::format("device {} is held exclusively by job '{}' (placed without pack)", d,
                           s_.workload->job_names[slot.jobs[k]]);
      }
    }
    // Under the share controller the guarantees bound the holders (and kMaxShare); whole-device
    // jobs packed by a policy like Gandiva are bounded by max_jobs_per_device and memory.
    const double need = s_.share_min(j);
    const bool controlled = need < 1 || slot.controlled > 0;
    const unsigned most = controlled ? DeviceSlot::kMaxShare : s_.config.max_jobs_per_device;
    if (slot.count >= most) {
      return controlled ? fmt::format("device {} already holds {} jobs (at most {} share one)", d,
                                      slot.count, most)
                        : fmt::format("device {} already holds {} jobs (max_jobs_per_device = {})",
                                      d, slot.count, most);
    }
    if (controlled && !fits_in(slot.guaranteed + need, 1)) {
      return fmt::format("device {} has {} of its share guaranteed to others, {} needed", d,
                         slot.guaranteed, need);
    }
    double cap = c.type_of(d).memory_gb;
    if (cap > 0 && rd.gpu_mem_gb > 0 && !fits_in(slot.mem_gb + rd.gpu_mem_gb, cap)) {
      return fmt::format("device {} memory: {} GB held + {} GB needed > {} GB", d, slot.mem_gb,
                         rd.gpu_mem_gb, cap);
    }
  }
  // Node CPUs and memory; the job's own current workers on a node give theirs back first. A
  // fresh placement takes the request's cores per worker, a move the job's now (set_cpus).
  const double worker_cores = own.empty() ? rd.cpus_per_worker : s_.worker_cores(j);
  NodeCounts own_workers;
  for (std::size_t i = 0; i < own.size(); i += dpw)
    own_workers.add(c.devices[own[i]].node);
  for (auto [node, n] : workers_on_node.by_node()) {
    int net = n - own_workers.of(node);
    if (net <= 0) continue;
    if (!fits_in(worker_cores * net, s_.node_cpu_free[node])) {
      return fmt::format("node {} has {} free CPU cores, {} needed", node, s_.node_cpu_free[node],
                         worker_cores * net);
    }
    if (!fits_in(rd.mem_gb_per_worker * net, s_.node_mem_free[node])) {
      return fmt::format("node {} has {} GB free memory, {} needed", node, s_.node_mem_free[node],
                         rd.mem_gb_per_worker * net);
    }
  }
  return std::nullopt;
}

std::optional<std::string> Simulation::check_bind(JobId j,
                                                  std::span<const DeviceId> devices) const {
  const Cluster& c = *s_.cluster;
  const JobRequest& req = s_.workload->jobs[j].request;
  const JobState& job = s_.jobs[j];
  const std::uint32_t dpw = req.devices_per_worker;
  if (dpw == 0) return "a host task holds no devices (docs/runtime.md#host-tasks)";
  if (devices.empty() || devices.size() % dpw != 0) {
    return fmt::format("{} devices is not a whole number of workers of {} devices", devices.size(),
                       dpw);
  }
  if (job.devices.size() + devices.size() > static_cast<std::size_t>(req.max_workers) * dpw) {
    return fmt::format("binding {} more devices would exceed the job's {} workers", devices.size(),
                       req.max_workers);
  }
  // The bound workers and the new ones must form a valid (partial) allocation: check the union
  // as if it were a gang of that many workers.
  std::vector<DeviceId> all = job.devices.to_vector();
  all.insert(all.end(), devices.begin(), devices.end());
  if (job.status == JobStatus::kBinding && c.devices[devices[0]].type != job.type) {
    return fmt::format("device {} is a {}, the job's bound devices are {}", devices[0],
                       c.types[c.devices[devices[0]].type].name, c.types[job.type].name);
  }
  return check_place_workers(j, all, Sharing::kExclusive, job.devices, 1, req.max_workers, 0);
}

void Simulation::do_place(JobId j, std::span<const DeviceId> devices, double cost_s,
                          JobStatus paying) {
  JobState& job = s_.jobs[j];
  --s_.pending;
  if (s_.failures.any()) cost_s = placement_cost(j, cost_s);
  // A fresh placement holds the request's cores (a change by set_cpus lasts while it runs).
  if (job.own_cores) {
    job.own_cores = false;
    s_.cores.erase(j);
  }
  occupy(j, devices);
  occupy_ps(j);
  if (job.first_start < 0) job.first_start = s_.now;
  job.last_update = s_.now;
  job.rate = 0;
  cancel_finish(j);
  if (cost_s > 0) {
    set_status(j, paying);
    queue_.push(time_after(s_.now, cost_s, "costs.start_s / costs.resume_s"),
                EventKind::kActionDone, j, job.generation);
    return;
  }
  set_status(j, JobStatus::kRunning);
  set_running(j, true);
  refresh_rates(job.devices);
  if (s_.failures.checkpoints) arm_checkpoint(j);
}

std::optional<std::string> Simulation::check_place_hosts(JobId j,
                                                         std::span<const NodeId> nodes) const {
  const Cluster& c = *s_.cluster;
  const JobRequest& req = s_.workload->jobs[j].request;
  const RequestDetails& rd = s_.details_of(j);
  if (!is_host_task(req)) {
    return fmt::format("the job asks for {} device(s) per worker: it is placed on devices, not "
                       "nodes",
                       req.devices_per_worker);
  }
  if (nodes.size() != req.workers) {
    return fmt::format("{} node(s) given for a host task of {} workers (one per worker)",
                       nodes.size(), req.workers);
  }
  std::map<NodeId, int> workers_on_node; // small: one entry per node of the allocation
  for (NodeId n : nodes) {
    if (n >= c.nodes.size()) return fmt::format("node {} does not exist", n);
    ++workers_on_node[n];
  }
  for (auto [node, k] : workers_on_node) {
    if (!fits_in(rd.cpus_per_worker * k, s_.node_cpu_free[node])) {
      return fmt::format("node {} has {} free CPU cores, {} needed", node, s_.node_cpu_free[node],
                         rd.cpus_per_worker * k);
    }
    if (!fits_in(rd.mem_gb_per_worker * k, s_.node_mem_free[node])) {
      return fmt::format("node {} has {} GB free memory, {} needed", node, s_.node_mem_free[node],
                         rd.mem_gb_per_worker * k);
    }
  }
  return std::nullopt;
}

void Simulation::do_place_hosts(JobId j, std::span<const NodeId> nodes, double cost_s,
                                JobStatus paying) {
  JobState& job = s_.jobs[j];
  --s_.pending;
  if (s_.failures.any()) cost_s = placement_cost(j, cost_s);
  occupy_hosts(j, nodes);
  job.packed = false;
  job.sliced = false;
  if (job.first_start < 0) job.first_start = s_.now;
  job.last_update = s_.now;
  job.rate = 0;
  cancel_finish(j);
  if (cost_s > 0) {
    set_status(j, paying);
    queue_.push(time_after(s_.now, cost_s, "costs.start_s / costs.resume_s"),
                EventKind::kActionDone, j, job.generation);
    return;
  }
  set_status(j, JobStatus::kRunning);
  set_running(j, true);
  refresh_job(j);
  if (s_.failures.checkpoints) arm_checkpoint(j);
}

void Simulation::do_set_share(JobId j, double share_min, double share_max,
                              std::string_view reason) {
  JobState& job = s_.jobs[j];
  settle(j);
  const bool was_controlled = s_.under_controller(j);
  const double old_min = s_.share_min(j);
  // Stop first, with the old shares, so that the device's effective work is taken out as it
  // was put in.
  const double cost_s = s_.config.costs.set_share_s;
  if (cost_s > 0) set_running(j, false);
  for (DeviceId d : job.devices) {
    DeviceSlot& slot = s_.slots[d];
    slot.guaranteed += share_min - old_min;
    slot.controlled -= was_controlled ? 1 : 0;
  }
  s_.shares[j] = SimState::Shares{share_min, share_max};
  job.own_share = true;
  const bool controlled = s_.under_controller(j);
  for (DeviceId d : job.devices)
    s_.slots[d].controlled += controlled ? 1 : 0;
  job.rate = 0;
  s_.changes.jobs.mark(j);
  cancel_finish(j);
  emit(j, JobAction::kSetShare, job.devices, reason);
  if (cost_s > 0) {
    // The job's container is re-created with the new limits: it pauses (status resizing) and
    // the others on its devices share its time meanwhile.
    set_status(j, JobStatus::kResizing);
    refresh_rates(job.devices);
    queue_.push(time_after(s_.now, cost_s, "costs.set_share_s"), EventKind::kActionDone, j,
                job.generation);
    return;
  }
  for (DeviceId d : job.devices)
    refresh_effective(d, kNoJob);
  refresh_rates(job.devices);
}

void Simulation::do_bind(JobId j, std::span<const DeviceId> devices) {
  occupy(j, devices);
  set_status(j, JobStatus::kBinding);
  cancel_finish(j);
}

void Simulation::do_unbind(JobId j) {
  set_status(j, JobStatus::kPending);
  cancel_finish(j);
  release(j);
}

void Simulation::do_cancel(JobId j, std::string_view reason) {
  JobState& job = s_.jobs[j];
  settle(j);
  bool holding = !job.devices.empty() || s_.hosts.contains(j);
  if (job.status == JobStatus::kRunning) set_running(j, false);
  if (job.status == JobStatus::kPending || job.status == JobStatus::kSuspended ||
      job.status == JobStatus::kBinding) {
    --s_.pending;
  }
  set_status(j, JobStatus::kCancelled);
  job.rate = 0;
  job.end = s_.now;
  cancel_finish(j);
  ++s_.cancelled;
  emit(j, JobAction::kCancel, job.devices, reason);
  if (holding) release(j);
}

void Simulation::do_suspend(JobId j, std::string_view reason) {
  JobState& job = s_.jobs[j];
  check_count(j, job.preemptions, JobState::kMaxPreemptions, "suspend");
  settle(j);
  if (job.status == JobStatus::kRunning) {
    set_running(j, false);
    set_status(j, JobStatus::kSuspending); // not running: co-located jobs speed up now
    refresh_rates(job.devices);
  }
  job.rate = 0;
  cancel_finish(j);
  ++job.preemptions;
  double cost_s = s_.config.costs.suspend_s;
  if (cost_s > 0) {
    set_status(j, JobStatus::kSuspending);
    queue_.push(time_after(s_.now, cost_s, "costs.suspend_s"), EventKind::kActionDone, j,
                job.generation);
    emit(j, JobAction::kSuspend, job.devices, reason);
    return;
  }
  set_status(j, JobStatus::kSuspended);
  ++s_.pending;
  emit(j, JobAction::kSuspend, job.devices, reason);
  emit(j, JobAction::kSuspended, job.devices);
  release(j);
}

void Simulation::do_move(JobId j, std::span<const DeviceId> devices, double cost_s,
                         JobStatus paying) {
  JobState& job = s_.jobs[j];
  settle(j);
  set_running(j, false);
  set_status(j, paying);
  std::vector<DeviceId> target(devices.begin(), devices.end());
  release(j);
  occupy(j, target);
  occupy_ps(j);
  job.rate = 0;
  cancel_finish(j);
  if (cost_s > 0) {
    queue_.push(time_after(s_.now, cost_s, "costs.migrate_s / costs.resize_s"),
                EventKind::kActionDone, j, job.generation);
    return;
  }
  set_status(j, JobStatus::kRunning);
  set_running(j, true);
  refresh_rates(job.devices);
}

// ---- Control: the policy-facing side ------------------------------------------------------

namespace {

Sharing sharing_of(const JobState& job) {
  if (job.sliced) return Sharing::kSlice;
  return job.packed ? Sharing::kPack : Sharing::kExclusive;
}

} // namespace

std::optional<std::string> Control::check_start(JobId j, std::span<const DeviceId> devices,
                                                bool allow_shared) const {
  JobStatus st = state(j).status;
  if (st != JobStatus::kPending && st != JobStatus::kSuspended) {
    return fmt::format("job is {}, not pending or suspended", to_string(st));
  }
  if (is_host_task(request(j)) && devices.empty()) {
    if (host_fit(j)) return std::nullopt;
    return "no node has the host task's cores and memory free";
  }
  return sim_.check_place(j, devices, allow_shared ? Sharing::kPack : Sharing::kExclusive, {});
}

bool Control::place_host_task(JobId j, std::span<const DeviceId> devices, const char* action,
                              HostFrom from, std::string_view reason) {
  if (!is_host_task(request(j))) return false;
  if (!devices.empty()) {
    sim_.refuse(j, action,
                fmt::format("{} device(s) given for a host task, which holds none (an empty "
                            "list places it on View::host_fit's nodes)",
                            devices.size()));
  }
  JobStatus st = state(j).status;
  const bool pending_ok = from != HostFrom::kSuspended;
  const bool suspended_ok = from != HostFrom::kPending;
  if (!(pending_ok && st == JobStatus::kPending) &&
      !(suspended_ok && st == JobStatus::kSuspended)) {
    sim_.refuse(j, action,
                fmt::format("job is {}, not {}", to_string(st),
                            from == HostFrom::kPending     ? "pending"
                            : from == HostFrom::kSuspended ? "suspended"
                                                           : "pending or suspended"));
  }
  std::optional<std::vector<NodeId>> nodes = host_fit(j);
  if (!nodes) sim_.refuse(j, action, "no node has the host task's cores and memory free");
  start_on_nodes(j, *nodes, reason);
  return true;
}

void Control::start_on_nodes(JobId j, std::span<const NodeId> nodes, std::string_view reason) {
  JobStatus st = state(j).status;
  if (st != JobStatus::kPending && st != JobStatus::kSuspended) {
    sim_.refuse(j, "start_on_nodes",
                fmt::format("job is {}, not pending or suspended", to_string(st)));
  }
  if (auto why = sim_.check_place_hosts(j, nodes)) sim_.refuse(j, "start_on_nodes", *why);
  const bool resuming = st == JobStatus::kSuspended;
  sim_.do_place_hosts(j, nodes, resuming ? config().costs.resume_s : config().costs.start_s,
                      JobStatus::kStarting);
  sim_.emit(j, resuming ? JobAction::kResume : JobAction::kStart, {}, reason);
}

void Control::start(JobId j, std::span<const DeviceId> devices, std::string_view reason) {
  if (place_host_task(j, devices, "start", HostFrom::kPending, reason)) return;
  const JobState& job = state(j);
  if (job.status == JobStatus::kBinding) {
    // The gang must include every bound device: they become part of the started allocation.
    for (DeviceId d : job.devices) {
      if (std::find(devices.begin(), devices.end(), d) == devices.end()) {
        sim_.refuse(j, "start", fmt::format("bound device {} is not in the allocation", d));
      }
    }
    std::vector<DeviceId> bound = job.devices.to_vector();
    if (auto why = sim_.check_place(j, devices, Sharing::kExclusive, bound))
      sim_.refuse(j, "start", *why);
    std::vector<DeviceId> all(devices.begin(), devices.end());
    sim_.set_status(j, JobStatus::kPending);
    sim_.release(j);
    sim_.do_place(j, all, config().costs.start_s, JobStatus::kStarting);
    sim_.emit(j, JobAction::kStart, state(j).devices, reason);
    return;
  }
  if (job.status != JobStatus::kPending) {
    sim_.refuse(j, "start", fmt::format("job is {}, not pending", to_string(job.status)));
  }
  if (auto why = sim_.check_place(j, devices, Sharing::kExclusive, {}))
    sim_.refuse(j, "start", *why);
  sim_.s_.jobs[j].packed = false;
  sim_.s_.jobs[j].sliced = false;
  sim_.do_place(j, devices, config().costs.start_s, JobStatus::kStarting);
  sim_.emit(j, JobAction::kStart, state(j).devices, reason);
}

void Control::bind(JobId j, std::span<const DeviceId> devices, std::string_view reason) {
  const JobState& job = state(j);
  if (job.status != JobStatus::kPending && job.status != JobStatus::kBinding) {
    sim_.refuse(j, "bind", fmt::format("job is {}, not pending or binding", to_string(job.status)));
  }
  if (auto why = sim_.check_bind(j, devices)) sim_.refuse(j, "bind", *why);
  sim_.do_bind(j, devices);
  sim_.emit(j, JobAction::kBind, devices, reason);
}

void Control::unbind(JobId j, std::string_view reason) {
  if (state(j).status != JobStatus::kBinding) {
    sim_.refuse(j, "unbind", fmt::format("job is {}, not binding", to_string(state(j).status)));
  }
  sim_.emit(j, JobAction::kUnbind, state(j).devices, reason);
  sim_.do_unbind(j);
}

void Control::pack(JobId j, std::span<const DeviceId> devices, std::string_view reason) {
  if (place_host_task(j, devices, "pack", HostFrom::kEither, reason)) return;
  JobStatus st = state(j).status;
  if (st != JobStatus::kPending && st != JobStatus::kSuspended) {
    sim_.refuse(j, "pack", fmt::format("job is {}, not pending or suspended", to_string(st)));
  }
  if (auto why = sim_.check_place(j, devices, Sharing::kPack, {})) sim_.refuse(j, "pack", *why);
  sim_.s_.jobs[j].packed = true;
  sim_.s_.jobs[j].sliced = false;
  double cost = st == JobStatus::kSuspended ? config().costs.resume_s : config().costs.start_s;
  sim_.do_place(j, devices, cost, JobStatus::kStarting);
  sim_.emit(j, JobAction::kPack, state(j).devices, reason);
}

void Control::timeslice(JobId j, std::span<const DeviceId> devices, double slice_s,
                        std::string_view reason) {
  if (is_host_task(request(j))) sim_.refuse(j, "timeslice", "a host task holds no devices");
  JobStatus st = state(j).status;
  if (st != JobStatus::kPending && st != JobStatus::kSuspended) {
    sim_.refuse(j, "timeslice", fmt::format("job is {}, not pending or suspended", to_string(st)));
  }
  if (!(slice_s > 0))
    sim_.refuse(j, "timeslice", fmt::format("slice must be positive, got {} s", slice_s));
  if (!(slice_s > config().costs.switch_s)) {
    sim_.refuse(j, "timeslice",
                fmt::format("a slice of {} s is not longer than costs.switch_s = {} s", slice_s,
                            config().costs.switch_s));
  }
  if (auto why = sim_.check_place(j, devices, Sharing::kSlice, {}, slice_s))
    sim_.refuse(j, "timeslice", *why);
  JobState& job = sim_.s_.jobs[j];
  job.sliced = true;
  job.packed = false;
  sim_.s_.slices[j] = slice_s;
  double cost = st == JobStatus::kSuspended ? config().costs.resume_s : config().costs.start_s;
  sim_.do_place(j, devices, cost, JobStatus::kStarting);
  sim_.emit(j, JobAction::kSlice, state(j).devices, reason);
}

void Control::suspend(JobId j, std::string_view reason) {
  JobStatus st = state(j).status;
  if (st != JobStatus::kRunning && st != JobStatus::kStarting) {
    sim_.refuse(j, "suspend", fmt::format("job is {}, not running or starting", to_string(st)));
  }
  sim_.do_suspend(j, reason);
}

void Control::resume(JobId j, std::span<const DeviceId> devices, std::string_view reason) {
  if (place_host_task(j, devices, "resume", HostFrom::kSuspended, reason)) return;
  if (state(j).status != JobStatus::kSuspended) {
    sim_.refuse(j, "resume", fmt::format("job is {}, not suspended", to_string(state(j).status)));
  }
  if (auto why = sim_.check_place(j, devices, Sharing::kExclusive, {}))
    sim_.refuse(j, "resume", *why);
  sim_.s_.jobs[j].packed = false;
  sim_.s_.jobs[j].sliced = false;
  sim_.do_place(j, devices, config().costs.resume_s, JobStatus::kStarting);
  sim_.emit(j, JobAction::kResume, state(j).devices, reason);
}

std::optional<std::string> Control::check_migrate(JobId j,
                                                  std::span<const DeviceId> devices) const {
  if (is_host_task(request(j))) return "a host task holds no devices";
  const JobState& job = state(j);
  if (job.status != JobStatus::kRunning)
    return fmt::format("job is {}, not running", to_string(job.status));
  if (devices.size() != job.devices.size()) {
    return fmt::format("{} devices given for a job holding {} (use resize)", devices.size(),
                       job.devices.size());
  }
  return sim_.check_place(j, devices, sharing_of(job), job.devices, sim_.s_.slice_s(j));
}

void Control::migrate(JobId j, std::span<const DeviceId> devices, std::string_view reason) {
  if (auto why = check_migrate(j, devices)) sim_.refuse(j, "migrate", *why);
  sim_.check_count(j, state(j).migrations, JobState::kMaxMoves, "migrate");
  ++sim_.s_.jobs[j].migrations;
  sim_.do_move(j, devices, config().costs.migrate_s, JobStatus::kMigrating);
  sim_.emit(j, JobAction::kMigrate, state(j).devices, reason);
}

void Control::resize(JobId j, std::span<const DeviceId> devices, std::string_view reason) {
  if (is_host_task(request(j))) sim_.refuse(j, "resize", "a host task holds no devices");
  const JobState& job = state(j);
  if (job.status != JobStatus::kRunning) {
    sim_.refuse(j, "resize", fmt::format("job is {}, not running", to_string(job.status)));
  }
  if (auto why = sim_.check_place(j, devices, sharing_of(job), job.devices, sim_.s_.slice_s(j)))
    sim_.refuse(j, "resize", *why);
  sim_.check_count(j, job.resizes, JobState::kMaxMoves, "resize");
  ++sim_.s_.jobs[j].resizes;
  sim_.do_move(j, devices, sim_.resize_cost(j), JobStatus::kResizing);
  sim_.emit(j, JobAction::kResize, state(j).devices, reason);
}

void Control::set_share(JobId j, double share_min, double share_max, std::string_view reason) {
  if (is_host_task(request(j))) sim_.refuse(j, "set_share", "a host task holds no devices");
  const JobState& job = state(j);
  if (job.status != JobStatus::kRunning) {
    sim_.refuse(j, "set_share", fmt::format("job is {}, not running", to_string(job.status)));
  }
  if (!job.packed) sim_.refuse(j, "set_share", "job was not placed with pack");
  if (!(share_min > 0 && share_min <= share_max && share_max <= 1)) {
    sim_.refuse(j, "set_share",
                fmt::format("shares must satisfy 0 < min <= max <= 1, got min {} max {}", share_min,
                            share_max));
  }
  if (share_min < 1 && request(j).devices_per_worker != 1) {
    sim_.refuse(j, "set_share", "a share of a device needs one device per worker");
  }
  const double own_min = sim_.s_.share_min(j);
  for (DeviceId d : job.devices) {
    const DeviceSlot& slot = device(d);
    const double others = slot.guaranteed - own_min;
    if (slot.count > 1 && (share_min >= 1) != (own_min >= 1)) {
      sim_.refuse(j, "set_share",
                  fmt::format("device {} is shared: a job cannot move between a share and a "
                              "whole device there",
                              d));
    }
    if (share_min < 1 && !fits_in(others + share_min, 1)) {
      sim_.refuse(j, "set_share",
                  fmt::format("device {} has {} of its share guaranteed to others, {} asked", d,
                              others, share_min));
    }
  }
  sim_.do_set_share(j, share_min, share_max, reason);
}

void Control::cancel(JobId j, std::string_view reason) {
  JobStatus st = state(j).status;
  if (st == JobStatus::kFuture || is_over(st)) {
    sim_.refuse(j, "cancel", fmt::format("job is {}", to_string(st)));
  }
  sim_.do_cancel(j, reason);
}

void Control::wake_at(SimTime t) {
  sim_.wake_at(t);
}

} // namespace dlsim
