#include "sim/runtime/admission.h"

#include "sim/cluster/fit.h"
#include "sim/runtime/ps_placement.h"
#include "sim/runtime/view.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
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

// Whole workers of devices_per_worker devices, as many as the job's range allows.
std::optional<std::string> check_shape(std::uint32_t dpw, const DeviceAsk& ask) {
  if (dpw == 0) return "a host task holds no devices (docs/runtime.md#host-tasks)";
  if (ask.devices.empty()) return "no devices given";
  if (ask.devices.size() % dpw != 0) {
    return fmt::format("{} devices is not a whole number of workers of {} devices",
                       ask.devices.size(), dpw);
  }
  auto workers = static_cast<std::uint32_t>(ask.devices.size() / dpw);
  if (workers < ask.min_workers || workers > ask.max_workers) {
    if (ask.min_workers == ask.max_workers) {
      return fmt::format("gang of {} workers broken: {} given", ask.min_workers, workers);
    }
    return fmt::format("{} workers is outside the job's elastic range [{}, {}]", workers,
                       ask.min_workers, ask.max_workers);
  }
  return std::nullopt;
}

// Every device exists and is listed once. The common start (a few devices) sorts without a heap
// allocation: a vector per start was a few percent of a million-job FIFO replay.
std::optional<std::string> check_distinct(const Cluster& c, std::span<const DeviceId> devices) {
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
  return std::nullopt;
}

// The type of device d (the first of the allocation) is one job j may train on.
std::optional<std::string> check_type(const SimState& s, JobId j, DeviceId d) {
  const Cluster& c = *s.cluster;
  const JobRequest& req = s.workload->jobs[j].request;
  DeviceTypeId type = c.devices[d].type;
  if (req.device_type >= 0 && type != req.device_type) {
    return fmt::format("device {} is a {}, the job requires {}", d, c.types[type].name,
                       c.types[req.device_type].name);
  }
  if (req.device_type == kAnyGpu && c.types[type].kind != DeviceKind::kGpu) {
    return fmt::format("device {} is a {}, not a GPU", d, c.types[type].name);
  }
  if (req.device_type == kTypeSet) {
    const auto& set = s.workload->type_sets[req.type_set];
    if (std::find(set.begin(), set.end(), type) == set.end())
      return fmt::format("device {} is a {}, not one of the job's types", d, c.types[type].name);
  }
  if (!s.workload->perf.supports(req.model, type)) {
    return fmt::format("device {} is a {}, on which the job's model cannot train", d,
                       c.types[type].name);
  }
  return std::nullopt;
}

// Device i of the allocation: of the first's type, on its worker's node, with memory for the
// job's model, up.
std::optional<std::string> check_device(const SimState& s, JobId j,
                                        std::span<const DeviceId> devices, std::size_t i) {
  const Cluster& c = *s.cluster;
  const std::uint32_t dpw = s.workload->jobs[j].request.devices_per_worker;
  const DeviceId d = devices[i];
  if (c.devices[d].type != c.devices[devices[0]].type) {
    return fmt::format("devices {} and {} are of different types", devices[0], d);
  }
  const NodeId worker_node = c.devices[devices[i - i % dpw]].node;
  if (c.devices[d].node != worker_node) {
    return fmt::format("worker {} spans nodes {} and {}", i / dpw, worker_node, c.devices[d].node);
  }
  const double need_gb = s.details_of(j).gpu_mem_gb;
  if (double cap = c.type_of(d).memory_gb; cap > 0 && !fits_in(need_gb, cap)) {
    return fmt::format("device {} ({}) has {} GB of memory, the job's model needs {} GB", d,
                       c.type_of(d).name, cap, need_gb);
  }
  if (!s.failures.down.empty() && s.failures.down[d] > 0)
    return fmt::format("device {} is down (failed, not yet repaired)", d);
  return std::nullopt;
}

// A held device joined by taking turns: every holder takes turns, at the same slice, and there
// is room for one more.
std::optional<std::string> check_slice(const SimState& s, DeviceId d, double slice_s) {
  const DeviceSlot& slot = s.slots[d];
  if (slot.sliced != slot.count) {
    return fmt::format("device {} holds jobs that do not take turns (started or packed)", d);
  }
  if (slot.count >= s.config.max_timeslice_jobs) {
    return fmt::format("device {} already has {} jobs taking turns (max_timeslice_jobs = {})", d,
                       slot.count, s.config.max_timeslice_jobs);
  }
  if (slot.slice_s != slice_s) {
    return fmt::format("device {} is sliced every {} s, not {} s", d, slot.slice_s, slice_s);
  }
  return std::nullopt; // time-sliced jobs are swapped out in turn: their memory is not summed
}

// A held device joined by packing: only packed jobs share; under the share controller the
// guarantees bound the holders (and kMaxShare), whole-device jobs packed by a policy like
// Gandiva are bounded by max_jobs_per_device; the holders' memory must fit.
std::optional<std::string> check_pack(const SimState& s, JobId j, DeviceId d) {
  const DeviceSlot& slot = s.slots[d];
  if (slot.sliced > 0) return fmt::format("device {} is time-sliced: pack cannot join it", d);
  for (unsigned k = 0; k < slot.count; ++k) {
    if (!s.jobs[slot.jobs[k]].packed) {
      return fmt::format("device {} is held exclusively by job '{}' (placed without pack)", d,
                         s.workload->job_names[slot.jobs[k]]);
    }
  }
  const double need = s.share_min(j);
  const bool controlled = need < 1 || slot.controlled > 0;
  const unsigned most = controlled ? DeviceSlot::kMaxShare : s.config.max_jobs_per_device;
  if (slot.count >= most) {
    return controlled ? fmt::format("device {} already holds {} jobs (at most {} share one)", d,
                                    slot.count, most)
                      : fmt::format("device {} already holds {} jobs (max_jobs_per_device = {})", d,
                                    slot.count, most);
  }
  if (controlled && !fits_in(slot.guaranteed + need, 1)) {
    return fmt::format("device {} has {} of its share guaranteed to others, {} needed", d,
                       slot.guaranteed, need);
  }
  const double cap = s.cluster->type_of(d).memory_gb;
  const double need_gb = s.details_of(j).gpu_mem_gb;
  if (cap > 0 && need_gb > 0 && !fits_in(slot.mem_gb + need_gb, cap)) {
    return fmt::format("device {} memory: {} GB held + {} GB needed > {} GB", d, slot.mem_gb,
                       need_gb, cap);
  }
  return std::nullopt;
}

// Device d as `sharing` allows, given the jobs on it now.
std::optional<std::string> check_holders(const SimState& s, JobId j, DeviceId d, Sharing sharing,
                                         double slice_s) {
  const DeviceSlot& slot = s.slots[d];
  if (slot.count == 0) return std::nullopt;
  switch (sharing) {
  case Sharing::kExclusive:
    return fmt::format("device {} is in use by job '{}'", d, s.workload->job_names[slot.jobs[0]]);
  case Sharing::kSlice:
    return check_slice(s, d, slice_s);
  case Sharing::kPack:
    return check_pack(s, j, d);
  }
  return std::nullopt;
}

// Each node's free cores and memory hold the workers placed there, less those of the job's own
// that give theirs back first (a move), at `cores` and `mem_gb` per worker. One rule for device
// workers and host workers.
std::optional<std::string> check_node_room(const SimState& s, NodeCounts& placed,
                                           const NodeCounts& given_back, double cores,
                                           double mem_gb) {
  for (auto [node, n] : placed.by_node()) {
    int net = n - given_back.of(node);
    if (net <= 0) continue;
    if (!fits_in(cores * net, s.node_cpu_free[node])) {
      return fmt::format("node {} has {} free CPU cores, {} needed", node, s.node_cpu_free[node],
                         cores * net);
    }
    if (!fits_in(mem_gb * net, s.node_mem_free[node])) {
      return fmt::format("node {} has {} GB free memory, {} needed", node, s.node_mem_free[node],
                         mem_gb * net);
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> check_workers(const SimState& s, JobId j, const DeviceAsk& ask) {
  const Cluster& c = *s.cluster;
  const std::uint32_t dpw = s.workload->jobs[j].request.devices_per_worker;
  if (auto why = check_shape(dpw, ask)) return why;
  if (auto why = check_distinct(c, ask.devices)) return why;
  if (auto why = check_type(s, j, ask.devices[0])) return why;
  NodeCounts placed; // small: one entry per node of the allocation
  for (std::size_t i = 0; i < ask.devices.size(); ++i) {
    const DeviceId d = ask.devices[i];
    if (auto why = check_device(s, j, ask.devices, i)) return why;
    if (i % dpw == 0) placed.add(c.devices[d].node);
    if (std::find(ask.own.begin(), ask.own.end(), d) != ask.own.end()) continue;
    if (auto why = check_holders(s, j, d, ask.sharing, ask.slice_s)) return why;
  }
  // A fresh placement takes the request's cores per worker, a move the job's now (set_cpus).
  const double worker_cores = ask.own.empty() ? s.details_of(j).cpus_per_worker : s.worker_cores(j);
  NodeCounts own_workers;
  for (std::size_t i = 0; i < ask.own.size(); i += dpw)
    own_workers.add(c.devices[ask.own[i]].node);
  return check_node_room(s, placed, own_workers, worker_cores, s.details_of(j).mem_gb_per_worker);
}

std::optional<std::string> check_place(const SimState& s, JobId j,
                                       std::span<const DeviceId> devices, Sharing sharing,
                                       std::span<const DeviceId> own, double slice_s) {
  const JobRequest& req = s.workload->jobs[j].request;
  auto why = check_workers(
      s, j, DeviceAsk{devices, sharing, own, req.min_workers, req.max_workers, slice_s});
  if (why || !holds_ps_cores(req)) return why;
  // The shards' cores on the workers' nodes (ps_placement.h): a fresh placement at the request's
  // cores, a move at the job's cores now.
  const bool moving = !own.empty();
  return check_ps_cores(View(s, true, true), j, devices, s.ps(j),
                        moving ? s.ps_cores(j) : req.ps_cpus,
                        moving ? s.worker_cores(j) : s.details_of(j).cpus_per_worker, moving);
}

std::optional<std::string> check_bind(const SimState& s, JobId j,
                                      std::span<const DeviceId> devices) {
  const Cluster& c = *s.cluster;
  const JobRequest& req = s.workload->jobs[j].request;
  const JobState& job = s.jobs[j];
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
  if (job.status == JobStatus::kBinding && c.devices[devices[0]].type != job.type) {
    return fmt::format("device {} is a {}, the job's bound devices are {}", devices[0],
                       c.types[c.devices[devices[0]].type].name, c.types[job.type].name);
  }
  // The bound workers and the new ones must form a valid (partial) allocation: check the union
  // as if it were a gang of that many workers.
  std::vector<DeviceId> all = job.devices.to_vector();
  all.insert(all.end(), devices.begin(), devices.end());
  return check_workers(s, j, DeviceAsk{all, Sharing::kExclusive, job.devices, 1, req.max_workers});
}

std::optional<std::string> check_hosts(const SimState& s, JobId j, std::span<const NodeId> nodes) {
  const JobRequest& req = s.workload->jobs[j].request;
  const RequestDetails& rd = s.details_of(j);
  if (!is_host_task(req)) {
    return fmt::format("the job asks for {} device(s) per worker: it is placed on devices, not "
                       "nodes",
                       req.devices_per_worker);
  }
  if (nodes.size() != req.workers) {
    return fmt::format("{} node(s) given for a host task of {} workers (one per worker)",
                       nodes.size(), req.workers);
  }
  NodeCounts placed; // small: one entry per node of the allocation
  for (NodeId n : nodes) {
    if (n >= s.cluster->nodes.size()) return fmt::format("node {} does not exist", n);
    placed.add(n);
  }
  return check_node_room(s, placed, NodeCounts{}, rd.cpus_per_worker, rd.mem_gb_per_worker);
}

} // namespace dlsim
