// Routes between devices and hosts (CPU sockets) on the cluster topology: the path the hardware
// would use, as a list of directed hops. Within a node it is a shortest path in hops (Boost BFS
// over the node's own links; NVLink carries only GPU-to-GPU traffic); between nodes it goes up
// to the node's NIC, through its top-of-rack switch (and the spine when the racks differ) and
// down from the other NIC. The BFS trees are computed once per source and cached.
#pragma once

#include "sim/cluster/cluster.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace dlsim {

// One link crossed in one direction. Links are full duplex: each direction is its own resource.
struct Hop {
  std::uint32_t link = 0;
  bool reverse = false; // crossed from the link's second end to its first

  [[nodiscard]] std::uint32_t resource() const { return 2 * link + (reverse ? 1 : 0); }
};

class Router {
public:
  using Vertex = Topology::Vertex;

  explicit Router(const Cluster& cluster);

  [[nodiscard]] Vertex device_vertex(DeviceId d) const { return device_vertex_[d]; }
  // Socket s of node n.
  [[nodiscard]] Vertex socket_vertex(NodeId n, std::uint32_t s) const;
  // The socket whose PCIe tree holds device d: where its input batches are staged.
  [[nodiscard]] Vertex device_socket(DeviceId d) const { return device_socket_[d]; }
  // The node a vertex belongs to (devices, switches, sockets and NICs), or kNoNode.
  [[nodiscard]] std::uint32_t node_of(Vertex v) const { return node_of_[v]; }
  static constexpr std::uint32_t kNoNode = 0xffffffffu;

  // Appends the hops from a to b (none when a == b).
  void route(Vertex a, Vertex b, std::vector<Hop>& out) const;
  // A flow endpoint as `dlsim net-solve` writes it: a device's id ("12"), or "n3.socket0".
  [[nodiscard]] std::string endpoint_label(Vertex v) const;
  // "n0.nic>tor0": the link's two ends in the direction crossed.
  [[nodiscard]] std::string hop_name(Hop h) const;
  [[nodiscard]] std::pair<Vertex, Vertex> ends(std::uint32_t link) const { return ends_[link]; }
  [[nodiscard]] const Cluster& cluster() const { return cluster_; }

private:
  // Parts of the constructor: the indexes below, built once.
  void index_vertices();
  void index_node_ranges();
  void index_links();
  // Predecessor link (or -1) of each of the node's vertices on a BFS tree from `src`.
  const std::vector<std::int32_t>& tree(Vertex src, bool nvlink) const;
  // Hops from the tree's root down to v (appended in root-to-v order), or up from v to the root
  // when `up` (appended in v-to-root order).
  void tree_path(const std::vector<std::int32_t>& pred, Vertex root, Vertex v, bool up,
                 std::vector<Hop>& out) const;
  [[nodiscard]] Hop hop_from(std::uint32_t link, Vertex from) const {
    return Hop{link, ends_[link].first != from};
  }

  const Cluster& cluster_;
  std::vector<std::pair<Vertex, Vertex>> ends_; // per link id: its ends as built
  std::vector<std::uint32_t> node_of_;          // per vertex
  std::vector<Vertex> node_base_;               // first vertex of each node (they are contiguous)
  std::vector<std::uint32_t> node_size_;
  std::vector<Vertex> device_vertex_;
  std::vector<Vertex> device_socket_;
  std::vector<Vertex> nic_;             // per node
  std::vector<std::uint32_t> nic_link_; // per node: NIC - ToR
  std::vector<Vertex> tor_;             // per rack
  std::vector<std::uint32_t> uplink_;   // per rack: ToR - spine
  // Cached BFS trees keyed by (source vertex, NVLink allowed); only looked up, never iterated.
  mutable std::unordered_map<std::uint64_t, std::vector<std::int32_t>> trees_;
};

} // namespace dlsim
