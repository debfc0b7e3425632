#include "sim/cluster/cluster.h"

#include "sim/cluster/fit.h"

#include <algorithm>

namespace dlsim {

std::uint32_t Cluster::count_of_type(DeviceTypeId t) const {
  return static_cast<std::uint32_t>(
      std::count_if(devices.begin(), devices.end(), [t](const Device& d) { return d.type == t; }));
}

std::uint32_t Cluster::count_of_kind(DeviceKind k) const {
  return static_cast<std::uint32_t>(std::count_if(
      devices.begin(), devices.end(), [&](const Device& d) { return types[d.type].kind == k; }));
}

std::uint32_t Cluster::max_per_node(DeviceTypeId t) const {
  std::uint32_t best = 0;
  for (const auto& g : groups) {
    for (auto [type, n] : g.devices) {
      if (type == t && g.count > 0) best = std::max(best, n);
    }
  }
  return best;
}

std::uint64_t workers_on_node(const NodeGroup& g, std::uint64_t by_devices, double cpus_per_worker,
                              double mem_gb_per_worker) {
  return std::min({by_devices, std::uint64_t{workers_in(g.cpu_cores, cpus_per_worker)},
                   std::uint64_t{workers_in(g.memory_gb, mem_gb_per_worker)}});
}

std::uint64_t Cluster::workers_when_empty(DeviceTypeId t, std::uint32_t devices_per_worker,
                                          double cpus_per_worker, double mem_gb_per_worker) const {
  if (devices_per_worker == 0) return 0;
  std::uint64_t total = 0;
  for (const auto& g : groups) {
    std::uint32_t devs = 0;
    for (auto [type, n] : g.devices) {
      if (type == t) devs += n;
    }
    total +=
        workers_on_node(g, devs / devices_per_worker, cpus_per_worker, mem_gb_per_worker) * g.count;
  }
  return total;
}

namespace {

// One node's internals: devices under PCIe switches, switches under sockets, the NIC on the
// first socket, and NVLink between every pair of the node's GPUs when the group has it.
void build_node(Cluster& c, NodeId node_id, const NodeLinks& l, Topology::Vertex tor) {
  Topology& topo = c.topology;
  const Node& node = c.nodes[node_id];
  constexpr double kPcieLatencyUs = 1.0;
  std::vector<Topology::Vertex> sockets;
  for (int s = 0; s < std::max(1, l.sockets); ++s) {
    sockets.push_back(topo.add_vertex(VertexKind::kSocket, node_id, static_cast<std::uint32_t>(s)));
    if (s > 0)
      topo.add_link(sockets[0], sockets.back(), LinkKind::kSocketLink, l.socket_link_gb_s, 0.1);
  }
  const std::uint32_t per_switch = std::max(1, l.devices_per_pcie_switch);
  Topology::Vertex sw{};
  std::vector<Topology::Vertex> device_vertices;
  for (std::uint32_t i = 0; i < node.device_count; ++i) {
    if (i % per_switch == 0) {
      std::uint32_t k = i / per_switch;
      sw = topo.add_vertex(VertexKind::kPcieSwitch, node_id, k);
      topo.add_link(sw, sockets[k % sockets.size()], LinkKind::kHostBridge, l.pcie_gb_s,
                    kPcieLatencyUs);
    }
    DeviceId d = node.first_device + i;
    auto dv = topo.add_vertex(VertexKind::kDevice, d);
    topo.set_device_vertex(d, dv);
    topo.add_link(dv, sw, LinkKind::kPcie, l.pcie_gb_s, kPcieLatencyUs);
    device_vertices.push_back(dv);
  }
  if (l.nvlink) {
    // A full mesh among the node's GPUs: NVSwitch-style. DGX-1's hybrid cube-mesh is not
    // modeled (docs/cluster.md).
    for (std::uint32_t i = 0; i < node.device_count; ++i) {
      for (std::uint32_t j = i + 1; j < node.device_count; ++j) {
        if (c.type_of(node.first_device + i).kind != DeviceKind::kGpu ||
            c.type_of(node.first_device + j).kind != DeviceKind::kGpu) {
          continue;
        }
        topo.add_link(device_vertices[i], device_vertices[j], LinkKind::kNvlink, l.nvlink_gb_s,
                      0.5);
      }
    }
  }
  auto nic = topo.add_vertex(VertexKind::kNic, node_id);
  topo.add_link(nic, sockets[0], LinkKind::kHostBridge, l.pcie_gb_s, kPcieLatencyUs);
  topo.add_link(nic, tor, LinkKind::kNic, l.nic_gb_s, c.fabric.link_latency_us);
}

} // namespace

std::uint64_t links_per_node(const NodeGroup& group, const std::vector<DeviceType>& types) {
  const NodeLinks& l = group.links;
  std::uint64_t devices = 0;
  std::uint64_t gpus = 0;
  for (auto [type, n] : group.devices) {
    devices += n;
    if (types[type].kind == DeviceKind::kGpu) gpus += n;
  }
  const std::uint64_t per_switch = std::max(1, l.devices_per_pcie_switch);
  const std::uint64_t sockets = std::max(1, l.sockets);
  std::uint64_t links = (sockets - 1) + (devices + per_switch - 1) / per_switch + devices + 2;
  if (l.nvlink && gpus > 1) links += gpus * (gpus - 1) / 2;
  return links;
}

void build_cluster(Cluster& c) {
  c.devices.clear();
  c.nodes.clear();
  c.topology = Topology{};
  // Racks: pinned groups go where they say; the others fill racks in order.
  std::uint32_t next_free_slot = 0;
  std::uint32_t max_rack = 0;
  for (std::uint32_t g = 0; g < c.groups.size(); ++g) {
    const NodeGroup& group = c.groups[g];
    for (std::uint32_t i = 0; i < group.count; ++i) {
      Node node;
      node.group = g;
      if (group.rack >= 0) {
        node.rack = static_cast<std::uint32_t>(group.rack);
      } else {
        node.rack = next_free_slot / std::max<std::uint32_t>(1, c.fabric.nodes_per_rack);
        ++next_free_slot;
      }
      max_rack = std::max(max_rack, node.rack);
      node.first_device = static_cast<DeviceId>(c.devices.size());
      for (auto [type, n] : group.devices) {
        for (std::uint32_t k = 0; k < n; ++k) {
          c.devices.push_back(Device{type, static_cast<NodeId>(c.nodes.size())});
        }
      }
      node.device_count = static_cast<std::uint32_t>(c.devices.size()) - node.first_device;
      node.cpu_cores = group.cpu_cores;
      node.memory_gb = group.memory_gb;
      c.nodes.push_back(node);
    }
  }
  c.rack_count = c.nodes.empty() ? 0 : max_rack + 1;

  Topology& topo = c.topology;
  // Reserved to the link: doubling vectors of millions of links held up to twice their size.
  std::uint64_t links = c.rack_count;
  for (const NodeGroup& g : c.groups)
    links += links_per_node(g, c.types) * g.count;
  topo.reserve_links(links);
  auto spine = topo.add_vertex(VertexKind::kSpine, 0);
  std::vector<Topology::Vertex> tors;
  std::vector<double> rack_nic_sum(c.rack_count, 0.0);
  for (const Node& n : c.nodes)
    rack_nic_sum[n.rack] += c.groups[n.group].links.nic_gb_s;
  for (std::uint32_t r = 0; r < c.rack_count; ++r) {
    tors.push_back(topo.add_vertex(VertexKind::kTor, r));
    double up = c.fabric.tor_uplink_gb_s > 0 ? c.fabric.tor_uplink_gb_s : rack_nic_sum[r];
    topo.add_link(tors.back(), spine, LinkKind::kRackUplink, up, c.fabric.link_latency_us);
  }
  for (NodeId id = 0; id < c.nodes.size(); ++id) {
    build_node(c, id, c.groups[c.nodes[id].group].links, tors[c.nodes[id].rack]);
  }
}

} // namespace dlsim
