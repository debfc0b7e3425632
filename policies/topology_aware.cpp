// Topology-aware placement (Amaral et al., SC'17): candidate allocations that keep the job on few
// nodes, switches and racks, scored by the bandwidth its pattern would get on the links it
// crosses given the flows already there, then by hops. docs/network.md#topology-aware-placement.
#include "policies/topology_aware.h"

#include "sim/network/network_model.h"

#include <algorithm>
#include <limits>
#include <map>

namespace dlsim {

namespace {

// Candidates scored per decision: enough to see past a loaded node or rack, few enough that a
// placement costs a few hundred route look-ups at most.
constexpr std::size_t kMaxCandidates = 16;

// `count` free devices of type t on node n, under as few PCIe switches as possible: one switch
// if one holds them all (the one with the fewest free devices that does: best fit keeps the
// emptier switches whole), else the switches with the most free devices first. A node's
// devices are numbered switch by switch (build_cluster), so device / per_switch is the switch.
std::vector<DeviceId> pick_on_node(const View& view, NodeId n, DeviceTypeId t,
                                   std::uint32_t count) {
  const Cluster& c = view.cluster();
  const Node& node = c.nodes[n];
  const auto per_switch =
      static_cast<std::uint32_t>(std::max(1, c.groups[node.group].links.devices_per_pcie_switch));
  std::vector<std::vector<DeviceId>> switches; // free devices per switch, in switch order
  std::uint32_t last_switch = std::numeric_limits<std::uint32_t>::max();
  for (DeviceId d = node.first_device; d < node.first_device + node.device_count; ++d) {
    if (c.devices[d].type != t || view.device(d).count != 0 || view.device_down(d)) continue;
    std::uint32_t sw = (d - node.first_device) / per_switch;
    if (sw != last_switch) switches.emplace_back();
    last_switch = sw;
    switches.back().push_back(d);
  }
  const std::vector<DeviceId>* fit = nullptr;
  for (const auto& s : switches) {
    if (s.size() >= count && (fit == nullptr || s.size() < fit->size())) fit = &s;
  }
  std::vector<DeviceId> out;
  if (fit != nullptr) {
    out.assign(fit->begin(), fit->begin() + count);
    return out;
  }
  std::stable_sort(switches.begin(), switches.end(),
                   [](const auto& a, const auto& b) { return a.size() > b.size(); });
  for (const auto& s : switches) {
    for (DeviceId d : s) {
      if (out.size() < count) out.push_back(d);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// How a candidate would fare: the estimated bandwidth of its worst flow (each directed link's
// capacity over the flows already on it plus the job's own), and the hops of all its flows.
struct Score {
  double bandwidth = std::numeric_limits<double>::infinity();
  std::size_t hops = 0;
};

bool better(const Score& a, const Score& b) {
  if (a.bandwidth > b.bandwidth * (1 + 1e-9)) return true;
  if (b.bandwidth > a.bandwidth * (1 + 1e-9)) return false;
  return a.hops < b.hops;
}

Score score(const View& view, const NetworkModel& net, JobId j,
            const std::vector<DeviceId>& devices) {
  const JobRequest& req = view.request(j);
  std::vector<PatternFlow> flows;
  pattern_flows(net.router(), TrafficRequest{devices, req.devices_per_worker, req.ps, false},
                flows);
  Score s;
  std::vector<Hop> hops;
  std::vector<MaxMinSolver::ResourceId> res;
  for (const PatternFlow& f : flows) {
    hops.clear();
    net.router().route(f.src, f.dst, hops);
    s.hops += hops.size();
    net.resources_of(hops, res);
  }
  std::sort(res.begin(), res.end());
  const MaxMinSolver& solver = net.solver();
  for (std::size_t i = 0; i < res.size();) {
    std::size_t k = i;
    while (k < res.size() && res[k] == res[i])
      ++k;
    double share = solver.capacity(res[i]) / static_cast<double>(solver.flows_on(res[i]) + (k - i));
    s.bandwidth = std::min(s.bandwidth, share);
    i = k;
  }
  return s;
}

struct NodeShare {
  NodeId node;
  std::uint32_t workers; // workers of the job that fit on it now
};

// Devices for a multi-node plan, node by node in id order (racks are id-contiguous, so the ring
// crosses each rack boundary as few times as possible).
std::vector<DeviceId> devices_of(const View& view, DeviceTypeId t, std::uint32_t dpw,
                                 std::vector<NodeShare> plan) {
  std::sort(plan.begin(), plan.end(),
            [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
  std::vector<DeviceId> out;
  for (const NodeShare& p : plan) {
    auto on_node = pick_on_node(view, p.node, t, p.workers * dpw);
    out.insert(out.end(), on_node.begin(), on_node.end());
  }
  return out;
}

// Takes workers from `nodes` in order until `workers` are placed; empty if they do not suffice.
std::vector<NodeShare> fill(const std::vector<NodeShare>& nodes, std::uint32_t workers) {
  std::vector<NodeShare> plan;
  for (const NodeShare& n : nodes) {
    if (workers == 0) break;
    std::uint32_t w = std::min(workers, n.workers);
    plan.push_back(NodeShare{n.node, w});
    workers -= w;
  }
  if (workers > 0) plan.clear();
  return plan;
}

// Multi-node candidates: each rack that can hold the job alone (best-fit racks first), filled
// from its nodes with the most free devices; if no rack can, one plan over the racks with the
// most room first.
std::vector<std::vector<DeviceId>> multi_node(const View& view, JobId j, DeviceTypeId t,
                                              std::uint32_t workers) {
  const FreeIndex& free = view.free();
  const std::uint32_t dpw = view.request(j).devices_per_worker;
  std::map<std::uint32_t, std::vector<NodeShare>> by_rack; // ordered: deterministic
  std::map<std::uint32_t, std::uint32_t> rack_room;
  for (std::uint32_t k = free.max_per_node(t); k >= dpw && k > 0; --k) {
    for (NodeId n : free.nodes_with(t, k)) {
      std::uint32_t w = view.workers_fitting_on(j, n, t);
      if (w == 0) continue;
      std::uint32_t rack = view.cluster().nodes[n].rack;
      by_rack[rack].push_back(NodeShare{n, w});
      rack_room[rack] += w;
    }
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> racks; // (room, rack)
  for (auto [rack, room] : rack_room)
    racks.emplace_back(room, rack);
  std::sort(racks.begin(), racks.end());
  std::vector<std::vector<DeviceId>> out;
  for (auto [room, rack] : racks) {
    if (room < workers) continue;
    out.push_back(devices_of(view, t, dpw, fill(by_rack[rack], workers)));
    if (out.size() == kMaxCandidates) break;
  }
  if (!out.empty()) return out;
  std::vector<NodeShare> all;
  for (auto it = racks.rbegin(); it != racks.rend(); ++it) {
    const auto& nodes = by_rack[it->second];
    all.insert(all.end(), nodes.begin(), nodes.end());
  }
  auto plan = fill(all, workers);
  if (!plan.empty()) out.push_back(devices_of(view, t, dpw, plan));
  return out;
}

} // namespace

std::optional<std::vector<DeviceId>> place_topology_aware(const View& view, JobId j, DeviceTypeId t,
                                                          std::uint32_t workers) {
  const FreeIndex& free = view.free();
  const std::uint32_t need = workers * view.request(j).devices_per_worker;
  std::vector<std::vector<DeviceId>> candidates;
  // One node when possible: the best-fit nodes first.
  for (std::uint32_t k = need; k <= free.max_per_node(t) && candidates.size() < kMaxCandidates;
       ++k) {
    for (NodeId n : free.nodes_with(t, k)) {
      if (view.workers_fitting_on(j, n, t) < workers) continue;
      candidates.push_back(pick_on_node(view, n, t, need));
      if (candidates.size() == kMaxCandidates || need == 1) break;
    }
    if (need == 1 && !candidates.empty()) break;
  }
  if (candidates.empty()) candidates = multi_node(view, j, t, workers);
  if (candidates.empty()) return std::nullopt;
  const NetworkModel* net = view.network();
  if (candidates.size() == 1 || need == 1 || net == nullptr) return candidates.front();
  std::size_t best = 0;
  Score best_score = score(view, *net, j, candidates[0]);
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    Score s = score(view, *net, j, candidates[i]);
    if (better(s, best_score)) {
      best = i;
      best_score = s;
    }
  }
  return candidates[best];
}

} // namespace dlsim
