// The modeled cluster: devices in nodes in racks, with the link parameters the topology uses.
#pragma once

#include "sim/cluster/device_catalog.h"
#include "sim/cluster/topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dlsim {

using DeviceId = std::uint32_t;
using NodeId = std::uint32_t;

// Bandwidths in GB/s (bytes), latencies in microseconds. Defaults and their sources are in
// docs/cluster.md.
struct NodeLinks {
  int pcie_gen = 3; // PCIe generation of the device slots
  int pcie_lanes = 16;
  double pcie_gb_s = 15.76; // derived from gen and lanes unless set
  int devices_per_pcie_switch = 4;
  int sockets = 2;
  double socket_link_gb_s = 41.6; // inter-socket (UPI/QPI)
  bool nvlink = false;
  double nvlink_gb_s = 150; // per GPU pair and direction, when nvlink is true
  double nic_gb_s = 12.5;   // 100 Gbit/s Ethernet or InfiniBand = 12.5 GB/s
  // Latency of one step of a ring all-reduce (a chunk handed to the next replica), inside the
  // node and across its NIC: NCCL's Ring/Simple hardware latencies for PCIe and the network.
  double ring_step_us = 5.7;
  double nic_ring_step_us = 9.6;
};

struct NodeGroup {
  std::string name;
  std::uint32_t count = 1;
  int rack = -1; // -1: racks filled in order by fabric.nodes_per_rack
  std::vector<std::pair<DeviceTypeId, std::uint32_t>> devices; // per node, in YAML order
  double cpu_cores = 0;
  double memory_gb = 0;
  NodeLinks links;
};

struct Fabric {
  std::uint32_t nodes_per_rack = 16;
  double tor_uplink_gb_s = 0;   // 0: non-blocking (the sum of the rack's NICs)
  double link_latency_us = 1.0; // per network hop
};

struct Device {
  DeviceTypeId type = 0;
  NodeId node = 0;
};

struct Node {
  std::uint32_t group = 0;
  std::uint32_t rack = 0;
  DeviceId first_device = 0; // devices of a node are contiguous ids
  std::uint32_t device_count = 0;
  double cpu_cores = 0;
  double memory_gb = 0;
};

struct Cluster {
  std::vector<DeviceType> types; // the catalog, plus any types the cluster file defines
  std::vector<NodeGroup> groups;
  Fabric fabric;
  std::vector<Device> devices;
  std::vector<Node> nodes;
  std::uint32_t rack_count = 0;
  Topology topology;

  [[nodiscard]] std::uint32_t count_of_type(DeviceTypeId t) const;
  [[nodiscard]] std::uint32_t count_of_kind(DeviceKind k) const;
  [[nodiscard]] const DeviceType& type_of(DeviceId d) const { return types[devices[d].type]; }
  [[nodiscard]] std::uint32_t rack_of(DeviceId d) const { return nodes[devices[d].node].rack; }
  // The most devices of type t that a single node holds.
  [[nodiscard]] std::uint32_t max_per_node(DeviceTypeId t) const;
  // How many workers of `devices_per_worker` devices of type t (and the cores and memory given
  // per worker; 0 = not asked) the whole cluster holds at once when it is empty: a job whose
  // gang is larger can never run on t, whatever a policy waits for.
  [[nodiscard]] std::uint64_t workers_when_empty(DeviceTypeId t, std::uint32_t devices_per_worker,
                                                 double cpus_per_worker,
                                                 double mem_gb_per_worker) const;
};

// Workers a node of group `g` holds by its CPU cores and memory (0 per worker = not asked), at
// most `by_devices`.
std::uint64_t workers_on_node(const NodeGroup& g, std::uint64_t by_devices, double cpus_per_worker,
                              double mem_gb_per_worker);

// Fills devices, nodes and racks from the groups, then builds the topology graph.
void build_cluster(Cluster& cluster);

// The links build_cluster gives one node of `group` (socket links, PCIe, NVLink pairs, NIC),
// counted without building anything, for the limit on a cluster's links (sim/cluster/limits.h).
std::uint64_t links_per_node(const NodeGroup& group, const std::vector<DeviceType>& types);

} // namespace dlsim
