#include "sim/cluster/topology.h"

#include <boost/graph/breadth_first_search.hpp>
#include <fmt/format.h>

#include <algorithm>

namespace dlsim {

Topology::Vertex Topology::add_vertex(VertexKind kind, std::uint32_t index, std::uint32_t sub) {
  return boost::add_vertex(TopoVertex{kind, index, sub}, graph_);
}

void Topology::add_link(Vertex a, Vertex b, LinkKind kind, double gb_s, double latency_us) {
  auto id = static_cast<std::uint32_t>(links_.size());
  TopoLink link{kind, gb_s, latency_us, id};
  boost::add_edge(a, b, TopoEdge{id, kind}, graph_);
  links_.push_back(link);
  link_ends_.emplace_back(a, b);
}

void Topology::reserve_links(std::size_t n) {
  links_.reserve(n);
  link_ends_.reserve(n);
}

void Topology::set_device_vertex(std::uint32_t device, Vertex v) {
  if (device_vertex_.size() <= device) device_vertex_.resize(device + 1);
  device_vertex_[device] = v;
}

namespace {

// Records, for every vertex reached, the link it was first reached by: a BFS tree is a
// shortest-path tree in hops.
class TreeRecorder : public boost::default_bfs_visitor {
public:
  explicit TreeRecorder(std::vector<std::int64_t>& pred) : pred_(pred) {}
  void tree_edge(TopoGraph::edge_descriptor e, const TopoGraph& g) {
    pred_[boost::target(e, g)] = g[e].id;
  }

private:
  std::vector<std::int64_t>& pred_;
};

} // namespace

const std::vector<std::uint32_t>& Topology::route(std::uint32_t a, std::uint32_t b) const {
  const std::size_t n_dev = device_vertex_.size();
  if (pred_link_.size() < n_dev) {
    pred_link_.resize(n_dev);
    routes_.resize(n_dev);
  }
  auto& cache = routes_[a];
  if (cache.size() < n_dev) cache.resize(n_dev);
  auto& out = cache[b];
  if (!out.empty() || a == b) return out;

  auto& pred = pred_link_[a];
  if (pred.empty()) {
    pred.assign(boost::num_vertices(graph_), -1);
    boost::breadth_first_search(graph_, device_vertex_[a], boost::visitor(TreeRecorder(pred)));
  }
  Vertex v = device_vertex_[b];
  Vertex src = device_vertex_[a];
  while (v != src) {
    auto link = static_cast<std::uint32_t>(pred[v]);
    out.push_back(link);
    auto [x, y] = link_ends_[link];
    v = (x == v) ? y : x;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::string Topology::vertex_name(Vertex v) const {
  const TopoVertex& tv = graph_[v];
  switch (tv.kind) {
  case VertexKind::kDevice:
    return fmt::format("dev{}", tv.index);
  case VertexKind::kPcieSwitch:
    return fmt::format("n{}.pcie{}", tv.index, tv.sub);
  case VertexKind::kSocket:
    return fmt::format("n{}.socket{}", tv.index, tv.sub);
  case VertexKind::kNic:
    return fmt::format("n{}.nic", tv.index);
  case VertexKind::kTor:
    return fmt::format("tor{}", tv.index);
  case VertexKind::kSpine:
    return "spine";
  }
  return "?";
}

std::string Topology::link_name(std::uint32_t id) const {
  auto [a, b] = link_ends_[id];
  return vertex_name(a) + ">" + vertex_name(b);
}

} // namespace dlsim
