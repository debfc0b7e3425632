// Affinity placement on free devices, and the node-resource checks every Gandiva action needs.
#include "policies/gandiva/affinity.h"

#include <algorithm>
#include <tuple>

namespace dlsim::gandiva {

std::vector<DeviceId> free_on(const View& view, const State& st, NodeId n, DeviceTypeId t,
                              const Claims* claims) {
  const Node& node = view.cluster().nodes[n];
  std::vector<DeviceId> out;
  if (claims && claims->nodes_off.count(n)) return out;
  for (DeviceId d = node.first_device; d < node.first_device + node.device_count; ++d) {
    if (view.cluster().devices[d].type != t || view.device(d).count != 0) continue;
    if (st.holder_group(d) != kNoGroup) continue;
    if (claims && claims->devices.count(d)) continue;
    out.push_back(d);
  }
  return out;
}

std::uint32_t workers_by_resources(const View& view, JobId j, NodeId n, const Claims* claims) {
  const JobRequest& req = view.request(j);
  auto limit = [](double free, double per) {
    return per > 0 ? static_cast<std::uint32_t>(std::max(0.0, free + 1e-9) / per) : 0xffffffffU;
  };
  double cpu = view.node_cpu_free(n);
  double mem = view.node_mem_free(n);
  if (claims) {
    if (auto it = claims->cpu.find(n); it != claims->cpu.end()) cpu -= it->second;
    if (auto it = claims->mem.find(n); it != claims->mem.end()) mem -= it->second;
  }
  return std::min(limit(cpu, req.cpus_per_worker), limit(mem, req.mem_gb_per_worker));
}

bool resources_fit(const View& view, JobId j, std::span<const DeviceId> devices,
                   const Claims* claims) {
  const std::uint32_t dpw = view.request(j).devices_per_worker;
  std::map<NodeId, std::uint32_t> workers;
  for (std::size_t i = 0; i < devices.size(); i += dpw)
    ++workers[view.cluster().devices[devices[i]].node];
  for (auto [n, w] : workers) {
    if (workers_by_resources(view, j, n, claims) < w) return false;
  }
  return true;
}

int affinity_rank(const View& view, const State& st, NodeId n, std::uint32_t cls) {
  const Node& node = view.cluster().nodes[n];
  bool same = false;
  for (DeviceId d = node.first_device; d < node.first_device + node.device_count; ++d) {
    std::uint32_t g = st.holder_group(d);
    if (g == kNoGroup) continue;
    if (st.groups.at(g).cls != cls) return 2;
    same = true;
  }
  return same ? 0 : 1;
}

namespace {

std::optional<std::vector<DeviceId>> place_on_type(const View& view, const State& st, JobId j,
                                                   DeviceTypeId t, std::uint32_t workers,
                                                   const Claims* claims) {
  const JobRequest& req = view.request(j);
  const std::uint32_t dpw = req.devices_per_worker;
  const std::uint32_t cls = req.devices();
  struct Candidate {
    int rank;
    std::uint32_t fit; // whole workers the node can take
    NodeId node;
    std::vector<DeviceId> free;
  };
  std::vector<Candidate> nodes;
  // A node takes a worker only if the runtime's per-node counts show at least dpw free devices
  // of type t (the devices free here are those, less held, reserved or claimed ones): visit those
  // nodes, not the cluster. Both choices below are minima over a total order (the node id breaks
  // ties), so the visiting order does not matter.
  const FreeIndex& index = view.free();
  for (std::uint32_t k = std::max<std::uint32_t>(dpw, 1); k <= index.max_per_node(t); ++k) {
    for (NodeId n : index.nodes_with(t, k)) {
      auto free = free_on(view, st, n, t, claims);
      std::uint32_t fit = std::min<std::uint32_t>(static_cast<std::uint32_t>(free.size()) / dpw,
                                                  workers_by_resources(view, j, n, claims));
      if (fit == 0) continue;
      nodes.push_back({affinity_rank(view, st, n, cls), fit, n, std::move(free)});
    }
  }
  // One node when possible: the best rank, then the fewest free devices (best fit).
  const Candidate* best = nullptr;
  for (const auto& c : nodes) {
    if (c.fit < workers) continue;
    if (!best || std::tie(c.rank, c.fit, c.node) < std::tie(best->rank, best->fit, best->node))
      best = &c;
  }
  if (best) return std::vector<DeviceId>(best->free.begin(), best->free.begin() + workers * dpw);
  // Several nodes: the best rank first, then the most workers per node, so the job spans few.
  std::sort(nodes.begin(), nodes.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.rank, b.fit, a.node) < std::tie(b.rank, a.fit, b.node);
  });
  std::vector<DeviceId> out;
  std::uint32_t left = workers;
  for (const auto& c : nodes) {
    std::uint32_t take = std::min(left, c.fit);
    out.insert(out.end(), c.free.begin(), c.free.begin() + take * dpw);
    left -= take;
    if (left == 0) return out;
  }
  return std::nullopt;
}

} // namespace

std::optional<std::vector<DeviceId>> affinity_place(const View& view, const State& st, JobId j,
                                                    std::uint32_t workers, const Claims* claims) {
  const std::uint32_t dpw = view.request(j).devices_per_worker;
  for (DeviceTypeId t : view.compatible_types(j)) {
    if (view.free().free(t) < workers * dpw) continue; // fast refusal
    if (auto out = place_on_type(view, st, j, t, workers, claims)) return out;
  }
  return std::nullopt;
}

} // namespace dlsim::gandiva
