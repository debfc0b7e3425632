// Affinity placement on free devices, and the node-resource checks every Gandiva action needs.
#include "policies/gandiva/affinity.h"

#include "sim/cluster/fit.h"

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
  const RequestDetails& rd = view.details(j);
  auto limit = [](double free, double per) { return workers_in(free, per, 0xffffffffU); };
  double cpu = view.node_cpu_free(n);
  double mem = view.node_mem_free(n);
  if (claims) {
    if (auto it = claims->cpu.find(n); it != claims->cpu.end()) cpu -= it->second;
    if (auto it = claims->mem.find(n); it != claims->mem.end()) mem -= it->second;
  }
  return std::min(limit(cpu, rd.cpus_per_worker), limit(mem, rd.mem_gb_per_worker));
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

int affinity_rank(const View& /*view*/, const State& st, NodeId n, std::uint32_t cls) {
  bool same = false;
  for (const auto& [c, count] : st.classes_on(n)) {
    if (c != cls) return 2;
    same = true;
  }
  return same ? 0 : 1;
}

std::uint32_t free_count(const View& view, const State& st, NodeId n, DeviceTypeId t) {
  // With no reservation on the node, its free devices are the runtime's.
  if (st.reserved_on(n) == 0) return view.free().free_on(n, t);
  const Node& node = view.cluster().nodes[n];
  std::uint32_t k = 0;
  for (DeviceId d = node.first_device; d < node.first_device + node.device_count; ++d) {
    k += view.cluster().devices[d].type == t && view.device(d).count == 0 &&
         st.holder_group(d) == kNoGroup;
  }
  return k;
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
  };
  std::vector<Candidate> nodes;
  // A node takes a worker only if the runtime's per-node counts show at least dpw free devices
  // of type t (the devices free here are those, less held, reserved or claimed ones): only the
  // nodes of those counts are visited, not every node. Both
  // choices below are minima over a total order (the node id breaks ties), so the visiting order
  // does not matter; a node's devices are collected only once it is chosen.
  const FreeIndex& index = view.free();
  const std::uint32_t least = std::max<std::uint32_t>(dpw, 1);
  for (std::uint32_t k = least; k <= index.max_per_node(t); ++k) {
    for (NodeId n : index.nodes_with(t, k)) {
      std::uint32_t free = claims
                               ? static_cast<std::uint32_t>(free_on(view, st, n, t, claims).size())
                               : free_count(view, st, n, t);
      std::uint32_t fit =
          std::min<std::uint32_t>(free / dpw, workers_by_resources(view, j, n, claims));
      if (fit == 0) continue;
      nodes.push_back({affinity_rank(view, st, n, cls), fit, n});
    }
  }
  // One node when possible: the best rank, then the fewest free devices (best fit).
  const Candidate* best = nullptr;
  for (const auto& c : nodes) {
    if (c.fit < workers) continue;
    if (!best || std::tie(c.rank, c.fit, c.node) < std::tie(best->rank, best->fit, best->node))
      best = &c;
  }
  if (best) {
    auto free = free_on(view, st, best->node, t, claims);
    free.resize(static_cast<std::size_t>(workers) * dpw);
    return free;
  }
  // Several nodes: the best rank first, then the most workers per node, so the job spans few.
  std::sort(nodes.begin(), nodes.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.rank, b.fit, a.node) < std::tie(b.rank, a.fit, b.node);
  });
  std::vector<DeviceId> out;
  std::uint32_t left = workers;
  for (const auto& c : nodes) {
    std::uint32_t take = std::min(left, c.fit);
    auto free = free_on(view, st, c.node, t, claims);
    out.insert(out.end(), free.begin(), free.begin() + static_cast<std::ptrdiff_t>(take) * dpw);
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
