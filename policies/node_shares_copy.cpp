#include "policies/node_shares_copy.h"

namespace dlsim {

void NodeSharesCopy::refresh(const View& view) {
  const Cluster& c = view.cluster();
  if (nodes_.empty()) {
    check_node_shares(c);
    nodes_.resize(c.nodes.size());
    version_.assign(nodes_.size(), 0);
    for (NodeId n = 0; n < nodes_.size(); ++n)
      nodes_[n] = read_node(view, n);
  } else {
    auto read_all = [&] {
      for (NodeId n = 0; n < nodes_.size(); ++n)
        reread(view, n);
    };
    auto node = [&](std::uint32_t n) { reread(view, n); };
    if (!view.changes().nodes.for_each_since(node_stamp_, node)) read_all();
    auto job_nodes = [&](std::uint32_t j) {
      for (DeviceId d : view.state(j).devices)
        reread(view, c.devices[d].node);
      if (j < placed_on_.size() && placed_on_[j] != kNoNode) reread(view, placed_on_[j]);
    };
    if (!view.changes().jobs.for_each_since(job_stamp_, job_nodes)) read_all();
  }
  node_stamp_ = view.changes().nodes.stamp();
  job_stamp_ = view.changes().jobs.stamp();
}

void NodeSharesCopy::take(NodeId n, const PodShape& s, std::span<const std::uint32_t> gpus) {
  NodeShares& node = nodes_[n];
  node = after(node, s, gpus);
  for (std::uint32_t g : gpus)
    node.open[g] = false;
  version_[n] = ++clock_;
}

void NodeSharesCopy::reread(const View& view, NodeId n) {
  nodes_[n] = read_node(view, n);
  version_[n] = ++clock_;
}

void NodeSharesCopy::placed(JobId j, NodeId n) {
  if (placed_on_.size() <= j) placed_on_.resize(j + 1, kNoNode);
  placed_on_[j] = n;
}

} // namespace dlsim
