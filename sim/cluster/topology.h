// The cluster's physical topology as a Boost.Graph: devices, PCIe switches, CPU sockets, NICs,
// top-of-rack and spine switches, joined by links with a bandwidth and a latency. Routes are
// shortest paths in hops (NVLink, when present, is one hop), computed on first use and cached.
#pragma once

#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dlsim {

enum class VertexKind : std::uint8_t { kDevice, kPcieSwitch, kSocket, kNic, kTor, kSpine };
enum class LinkKind : std::uint8_t { kPcie, kHostBridge, kSocketLink, kNvlink, kNic, kRackUplink };

struct TopoVertex {
  VertexKind kind = VertexKind::kDevice;
  std::uint32_t index = 0; // device id for devices, node id for node parts, rack id for ToRs
  std::uint32_t sub = 0;   // which switch or socket within its node
};

struct TopoLink {
  LinkKind kind = LinkKind::kPcie;
  double gb_s = 0; // GB/s in each direction
  double latency_us = 0;
  std::uint32_t id = 0; // dense link id, = edge index
};

// What the graph keeps of a link: its id into Topology's links and the kind routes filter on.
// The bandwidth and latency live once, in Topology::link(id).
struct TopoEdge {
  std::uint32_t id = 0;
  LinkKind kind = LinkKind::kPcie;
};

// The edge list is a vector, not Boost's default std::list: links are only ever added, and a
// list node per link was one allocation each (8.4M for a 1.6M-GPU cluster). Out-edge order, and
// so every BFS route, is the same either way.
using TopoGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, TopoVertex,
                                        TopoEdge, boost::no_property, boost::vecS>;

class Topology {
public:
  using Vertex = TopoGraph::vertex_descriptor;

  Vertex add_vertex(VertexKind kind, std::uint32_t index, std::uint32_t sub = 0);
  void add_link(Vertex a, Vertex b, LinkKind kind, double gb_s, double latency_us);
  void set_device_vertex(std::uint32_t device, Vertex v);
  void reserve_links(std::size_t n);

  // Link ids along the route from device a to device b (empty when a == b).
  const std::vector<std::uint32_t>& route(std::uint32_t a, std::uint32_t b) const;
  std::size_t hops(std::uint32_t a, std::uint32_t b) const { return route(a, b).size(); }
  [[nodiscard]] const TopoLink& link(std::uint32_t id) const { return links_[id]; }
  [[nodiscard]] std::size_t link_count() const { return links_.size(); }
  [[nodiscard]] std::size_t vertex_count() const { return boost::num_vertices(graph_); }
  // "n3.pcie-sw1>n3.socket0" style name, for reports and the what-if tools.
  [[nodiscard]] std::string link_name(std::uint32_t id) const;
  [[nodiscard]] const TopoGraph& graph() const { return graph_; }

private:
  std::string vertex_name(Vertex v) const;

  TopoGraph graph_;
  std::vector<TopoLink> links_;
  std::vector<std::pair<Vertex, Vertex>> link_ends_;
  std::vector<Vertex> device_vertex_;
  // Per source device: the predecessor link of each vertex on a BFS tree (computed lazily),
  // and a cache of finished routes keyed by (a, b).
  mutable std::vector<std::vector<std::int64_t>> pred_link_;
  mutable std::vector<std::vector<std::vector<std::uint32_t>>> routes_;
};

} // namespace dlsim
