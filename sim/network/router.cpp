// Routes on the topology graph: per-node BFS trees (Boost.Graph, cached) joined through the
// NICs and the fabric.
#include "sim/network/router.h"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/pending/queue.hpp>
#include <boost/property_map/function_property_map.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace dlsim {

namespace {

// The filters of a per-node BFS: stay inside the node, and use NVLink only for GPU-to-GPU routes.
struct InNode {
  const std::vector<std::uint32_t>* node_of = nullptr;
  std::uint32_t node = 0;
  bool operator()(TopoGraph::vertex_descriptor v) const { return (*node_of)[v] == node; }
};

struct LinkAllowed {
  const TopoGraph* graph = nullptr;
  bool nvlink = false;
  bool operator()(TopoGraph::edge_descriptor e) const {
    return nvlink || (*graph)[e].kind != LinkKind::kNvlink;
  }
};

class TreeRecorder : public boost::default_bfs_visitor {
public:
  TreeRecorder(std::vector<std::int32_t>& pred, std::size_t base) : pred_(&pred), base_(base) {}
  template <class Edge, class Graph>
  void tree_edge(Edge e, const Graph& g) const {
    (*pred_)[boost::target(e, g) - base_] = static_cast<std::int32_t>(g[e].id);
  }

private:
  std::vector<std::int32_t>* pred_;
  std::size_t base_;
};

} // namespace

Router::Router(const Cluster& cluster) : cluster_(cluster) {
  const TopoGraph& g = cluster.topology.graph();
  ends_.resize(cluster.topology.link_count());
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    ends_[g[*it].id] = {boost::source(*it, g), boost::target(*it, g)};
  }
  index_vertices();
  index_node_ranges();
  index_links();
}

// Each vertex's node, each device's vertex, each node's NIC and each rack's ToR.
void Router::index_vertices() {
  const Cluster& cluster = cluster_;
  const TopoGraph& g = cluster.topology.graph();
  const std::size_t nv = boost::num_vertices(g);
  node_of_.assign(nv, kNoNode);
  device_vertex_.assign(cluster.devices.size(), 0);
  nic_.assign(cluster.nodes.size(), 0);
  tor_.assign(cluster.rack_count, 0);
  for (Vertex v = 0; v < nv; ++v) {
    const TopoVertex& tv = g[v];
    switch (tv.kind) {
    case VertexKind::kDevice:
      node_of_[v] = cluster.devices[tv.index].node;
      device_vertex_[tv.index] = v;
      break;
    case VertexKind::kPcieSwitch:
    case VertexKind::kSocket:
      node_of_[v] = tv.index;
      break;
    case VertexKind::kNic:
      node_of_[v] = tv.index;
      nic_[tv.index] = v;
      break;
    case VertexKind::kTor:
      tor_[tv.index] = v;
      break;
    case VertexKind::kSpine: // one per cluster, found from its ToRs
      break;
    }
  }
}

// A node's vertices are added together by build_cluster(): record each node's range and check
// that it holds nothing else, so that per-node BFS state can be indexed densely.
void Router::index_node_ranges() {
  const Cluster& cluster = cluster_;
  const std::size_t nv = boost::num_vertices(cluster.topology.graph());
  node_base_.assign(cluster.nodes.size(), std::numeric_limits<Vertex>::max());
  node_size_.assign(cluster.nodes.size(), 0);
  for (Vertex v = 0; v < nv; ++v) {
    std::uint32_t n = node_of_[v];
    if (n == kNoNode) continue;
    node_base_[n] = std::min(node_base_[n], v);
    node_size_[n] =
        static_cast<std::uint32_t>(std::max<std::size_t>(node_size_[n], v - node_base_[n] + 1));
  }
  for (NodeId n = 0; n < cluster.nodes.size(); ++n) {
    for (Vertex v = node_base_[n]; v < node_base_[n] + node_size_[n]; ++v) {
      if (node_of_[v] != n)
        throw std::logic_error("Router: a node's topology vertices are not contiguous");
    }
  }
}

// Each node's NIC link, each rack's uplink, each device's socket.
void Router::index_links() {
  const Cluster& cluster = cluster_;
  const TopoGraph& g = cluster.topology.graph();
  const std::size_t nv = boost::num_vertices(g);
  nic_link_.assign(cluster.nodes.size(), 0);
  uplink_.assign(cluster.rack_count, 0);
  std::vector<Vertex> switch_socket(nv, 0);
  for (std::uint32_t l = 0; l < ends_.size(); ++l) {
    auto [a, b] = ends_[l];
    switch (cluster.topology.link(l).kind) {
    case LinkKind::kNic:
      nic_link_[node_of_[g[a].kind == VertexKind::kNic ? a : b]] = l;
      break;
    case LinkKind::kRackUplink:
      uplink_[g[g[a].kind == VertexKind::kTor ? a : b].index] = l;
      break;
    case LinkKind::kHostBridge:
      if (g[a].kind == VertexKind::kPcieSwitch) switch_socket[a] = b;
      if (g[b].kind == VertexKind::kPcieSwitch) switch_socket[b] = a;
      break;
    default:
      break;
    }
  }
  device_socket_.assign(cluster.devices.size(), 0);
  for (std::uint32_t l = 0; l < ends_.size(); ++l) {
    if (cluster.topology.link(l).kind != LinkKind::kPcie) continue;
    auto [a, b] = ends_[l];
    if (g[a].kind == VertexKind::kDevice)
      device_socket_[g[a].index] = switch_socket[b];
    else
      device_socket_[g[b].index] = switch_socket[a];
  }
}

Router::Vertex Router::socket_vertex(NodeId n, std::uint32_t s) const {
  const TopoGraph& g = cluster_.topology.graph();
  for (Vertex v = node_base_[n]; v < node_base_[n] + node_size_[n]; ++v) {
    if (g[v].kind == VertexKind::kSocket && g[v].sub == s) return v;
  }
  throw std::logic_error("Router: no such socket");
}

const std::vector<std::int32_t>& Router::tree(Vertex src, bool nvlink) const {
  std::uint64_t key = (static_cast<std::uint64_t>(src) << 1) | (nvlink ? 1 : 0);
  auto found = trees_.find(key);
  if (found != trees_.end()) return found->second;
  const TopoGraph& g = cluster_.topology.graph();
  const std::uint32_t n = node_of_[src];
  const std::size_t base = node_base_[n];
  std::vector<std::int32_t> pred(node_size_[n], -1);
  std::vector<boost::default_color_type> colors(node_size_[n], boost::white_color);
  boost::filtered_graph<TopoGraph, LinkAllowed, InNode> node_graph(g, LinkAllowed{&g, nvlink},
                                                                   InNode{&node_of_, n});
  auto local =
      boost::make_function_property_map<Vertex, std::size_t>([base](Vertex v) { return v - base; });
  auto color = boost::make_iterator_property_map(colors.begin(), local);
  boost::queue<Vertex> queue;
  boost::breadth_first_visit(node_graph, src, queue, TreeRecorder(pred, base), color);
  return trees_.emplace(key, std::move(pred)).first->second;
}

void Router::tree_path(const std::vector<std::int32_t>& pred, Vertex root, Vertex v, bool up,
                       std::vector<Hop>& out) const {
  const std::size_t base = node_base_[node_of_[root]];
  const std::size_t start = out.size();
  while (v != root) {
    std::int32_t link = pred[v - base];
    if (link < 0) throw std::logic_error("Router: a vertex is unreachable inside its node");
    auto l = static_cast<std::uint32_t>(link);
    Vertex parent = ends_[l].first == v ? ends_[l].second : ends_[l].first;
    out.push_back(hop_from(l, up ? v : parent));
    v = parent;
  }
  if (!up) std::reverse(out.begin() + static_cast<std::ptrdiff_t>(start), out.end());
}

void Router::route(Vertex a, Vertex b, std::vector<Hop>& out) const {
  if (a == b) return;
  const TopoGraph& g = cluster_.topology.graph();
  const std::uint32_t na = node_of_[a];
  const std::uint32_t nb = node_of_[b];
  if (na == nb) {
    bool a_dev = g[a].kind == VertexKind::kDevice;
    bool b_dev = g[b].kind == VertexKind::kDevice;
    if (a_dev && b_dev)
      tree_path(tree(a, true), a, b, false, out);
    else if (!a_dev)
      tree_path(tree(a, false), a, b, false, out);
    else
      tree_path(tree(b, false), b, a, true, out);
    return;
  }
  tree_path(tree(nic_[na], false), nic_[na], a, true, out);
  const std::uint32_t ra = cluster_.nodes[na].rack;
  const std::uint32_t rb = cluster_.nodes[nb].rack;
  out.push_back(hop_from(nic_link_[na], nic_[na]));
  if (ra != rb) {
    out.push_back(hop_from(uplink_[ra], tor_[ra]));
    auto [x, y] = ends_[uplink_[rb]];
    Vertex spine = x == tor_[rb] ? y : x;
    out.push_back(hop_from(uplink_[rb], spine));
  }
  out.push_back(hop_from(nic_link_[nb], tor_[rb]));
  tree_path(tree(nic_[nb], false), nic_[nb], b, false, out);
}

std::string Router::endpoint_label(Vertex v) const {
  const TopoVertex& tv = cluster_.topology.graph()[v];
  if (tv.kind == VertexKind::kDevice) return std::to_string(tv.index);
  // fmt rather than "n" + std::string: GCC 12 warns on the latter (-Wrestrict, a false positive).
  return fmt::format("n{}.socket{}", tv.index, tv.sub);
}

std::string Router::hop_name(Hop h) const {
  std::string name = cluster_.topology.link_name(h.link);
  if (!h.reverse) return name;
  auto gt = name.find('>');
  return fmt::format("{}>{}", name.substr(gt + 1), name.substr(0, gt));
}

} // namespace dlsim
