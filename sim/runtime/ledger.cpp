#include "sim/runtime/ledger.h"

#include "sim/runtime/ps_placement.h"

#include <algorithm>
#include <array>
#include <vector>

namespace dlsim {

namespace {

// A worker's share of its node, taken and given back the same way for every kind of worker.
void take_node(SimState& s, NodeId n, double cores, double mem_gb) {
  s.node_cpu_free[n] -= cores;
  s.node_mem_free[n] -= mem_gb;
  s.cores_held += cores;
}
void give_node(SimState& s, NodeId n, double cores, double mem_gb) {
  s.node_cpu_free[n] += cores;
  s.node_mem_free[n] += mem_gb;
  s.cores_held -= cores;
}

// How many distinct nodes `workers` workers span, node_of(w) being worker w's. Without a heap
// allocation for the usual few workers: this runs at every start.
template <class NodeOf>
std::uint32_t distinct_nodes(std::size_t workers, NodeOf node_of) {
  constexpr std::size_t kOnStack = 64;
  std::array<NodeId, kOnStack> stack{};
  std::vector<NodeId> heap;
  std::span<NodeId> nodes(stack.data(), std::min(workers, kOnStack));
  if (workers > kOnStack) {
    heap.resize(workers);
    nodes = heap;
  }
  for (std::size_t w = 0; w < workers; ++w)
    nodes[w] = node_of(w);
  std::sort(nodes.begin(), nodes.end());
  return static_cast<std::uint32_t>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
}

// Job j's devices into their slots (holders, memory, guarantees, slicing), the free index and the
// busy counters; each worker's node share with its first device.
void occupy_devices(SimState& s, JobId j, std::span<const DeviceId> devices) {
  const Cluster& c = *s.cluster;
  JobState& job = s.jobs[j];
  const std::uint32_t dpw = s.workload->jobs[j].request.devices_per_worker;
  const RequestDetails& rd = s.details_of(j);
  const double share_min = s.share_min(j);
  const bool controlled = s.under_controller(j);
  const double slice_s = job.sliced ? s.slice_s(j) : 0.0;
  const double worker_cores = s.worker_cores(j);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    DeviceId d = devices[i];
    DeviceSlot& slot = s.slots[d];
    slot.jobs[slot.count++] = j;
    slot.mem_gb += rd.gpu_mem_gb;
    slot.guaranteed += share_min;
    if (controlled) ++slot.controlled;
    if (job.sliced) {
      ++slot.sliced;
      slot.slice_s = slice_s;
    }
    if (slot.count == 1) {
      s.free.device_taken(c, d);
      ++s.busy_by_type[c.devices[d].type];
      if (c.type_of(d).kind == DeviceKind::kGpu) ++s.busy_gpus;
    }
    NodeId n = c.devices[d].node;
    if (i % dpw == 0) take_node(s, n, worker_cores, rd.mem_gb_per_worker);
    if (i == 0 || n != c.devices[devices[i - 1]].node) s.changes.nodes.mark(n);
  }
  job.devices.append(devices);
  job.workers = static_cast<std::uint32_t>(job.devices.size() / dpw);
  job.type = c.devices[job.devices[0]].type;
  job.nodes_used = distinct_nodes(
      job.workers, [&](std::size_t w) { return c.devices[job.devices[w * dpw]].node; });
}

// A host task's workers onto their nodes.
void occupy_nodes(SimState& s, JobId j, std::span<const NodeId> nodes) {
  JobState& job = s.jobs[j];
  const double worker_cores = s.worker_cores(j);
  const double mem_gb = s.details_of(j).mem_gb_per_worker;
  for (NodeId n : nodes) {
    take_node(s, n, worker_cores, mem_gb);
    s.changes.nodes.mark(n);
  }
  if (!nodes.empty()) s.extras[j].hosts.assign(nodes.begin(), nodes.end());
  job.workers = static_cast<std::uint32_t>(nodes.size());
  job.nodes_used = distinct_nodes(nodes.size(), [&](std::size_t w) { return nodes[w]; });
}

// Job j's devices out of their slots; the first device of each worker gives its node share back.
void release_devices(SimState& s, JobId j) {
  const Cluster& c = *s.cluster;
  JobState& job = s.jobs[j];
  const std::uint32_t dpw = s.workload->jobs[j].request.devices_per_worker;
  const RequestDetails& rd = s.details_of(j);
  const double share_min = s.share_min(j);
  const bool controlled = s.under_controller(j);
  const double worker_cores = s.worker_cores(j);
  for (std::size_t i = 0; i < job.devices.size(); ++i) {
    DeviceId d = job.devices[i];
    DeviceSlot& slot = s.slots[d];
    auto* end = slot.jobs.begin() + slot.count;
    auto* it = std::find(slot.jobs.begin(), end, j);
    std::copy(it + 1, end, it); // keep holders in arrival order: deterministic and fair
    --slot.count;
    slot.mem_gb -= rd.gpu_mem_gb;
    slot.guaranteed -= share_min;
    if (controlled) --slot.controlled;
    if (job.sliced) --slot.sliced;
    if (slot.count == 0) {
      slot.mem_gb = 0; // no drift from repeated add and subtract
      slot.guaranteed = 0;
      // A failed device stays taken in the free index until its repair (failure_events.cpp).
      if (s.failures.down.empty() || s.failures.down[d] == 0) s.free.device_freed(c, d);
      --s.busy_by_type[c.devices[d].type];
      if (c.type_of(d).kind == DeviceKind::kGpu) --s.busy_gpus;
    }
    NodeId n = c.devices[d].node;
    if (i % dpw == 0) give_node(s, n, worker_cores, rd.mem_gb_per_worker);
    if (i == 0 || n != c.devices[job.devices[i - 1]].node) s.changes.nodes.mark(n);
  }
}

} // namespace

namespace ledger {

void occupy(SimState& s, JobId j, WorkerPlaces at) {
  if (at.devices.empty()) {
    occupy_nodes(s, j, at.nodes);
  } else {
    occupy_devices(s, j, at.devices);
  }
  s.changes.jobs.mark(j);
}

void occupy_ps(SimState& s, JobId j) {
  JobState& job = s.jobs[j];
  const JobRequest& req = s.workload->jobs[j].request;
  if (!holds_ps_cores(req)) return;
  std::vector<NodeId> hosts = ps_nodes(*s.cluster, job.devices, req.devices_per_worker, s.ps(j));
  const double ps_cores = s.ps_cores(j);
  for (NodeId n : hosts) {
    s.node_cpu_free[n] -= ps_cores;
    s.cores_held += ps_cores;
    s.changes.nodes.mark(n);
  }
  if (!hosts.empty()) s.extras[j].ps_hosts = std::move(hosts);
}

DeviceList release(SimState& s, JobId j) {
  release_devices(s, j);
  if (auto entry = s.extras.find(j); !s.extras.empty() && entry != s.extras.end()) {
    JobExtras& e = entry->second;
    if (!e.hosts.empty()) {
      const double worker_cores = s.worker_cores(j);
      const double mem_gb = s.details_of(j).mem_gb_per_worker;
      for (NodeId n : e.hosts) {
        give_node(s, n, worker_cores, mem_gb);
        s.changes.nodes.mark(n);
      }
      e.hosts = {};
    }
    if (!e.ps_hosts.empty()) {
      const double ps_cores = s.ps_cores(j);
      for (NodeId n : e.ps_hosts) {
        s.node_cpu_free[n] += ps_cores;
        s.cores_held -= ps_cores;
        s.changes.nodes.mark(n);
      }
      e.ps_hosts = {};
    }
    if (!e.in_use(s.jobs[j])) s.extras.erase(entry);
  }
  s.changes.jobs.mark(j);
  return std::move(s.jobs[j].devices);
}

} // namespace ledger

} // namespace dlsim
