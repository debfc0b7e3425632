#include "policies/node_snapshot.h"

namespace dlsim {

void NodeSnapshot::read_all(const View& v) {
  const Cluster& cluster = v.cluster();
  types_ = cluster.types.size();
  capacity_.assign(cluster.nodes.size() * types_, 0);
  for (const Device& d : cluster.devices)
    ++capacity_[static_cast<std::size_t>(d.node) * types_ + d.type];
  cpu_.assign(cluster.nodes.size(), 0);
  mem_.assign(cluster.nodes.size(), 0);
  free_.assign(capacity_.size(), 0);
  for (NodeId n = 0; n < cluster.nodes.size(); ++n)
    read_node(v, n);
  stamp_ = v.changes().nodes.stamp();
}

const std::vector<NodeId>& NodeSnapshot::read_changes(const View& v) {
  gained_.clear();
  auto visit = [&](NodeId n) {
    if (read_node(v, n)) gained_.push_back(n);
  };
  const ChangeLog& log = v.changes().nodes;
  if (!log.for_each_since(stamp_, visit)) {
    for (NodeId n = 0; n < v.cluster().nodes.size(); ++n)
      visit(n);
  }
  stamp_ = log.stamp();
  return gained_;
}

bool NodeSnapshot::read_node(const View& v, NodeId n) {
  bool gained = false;
  const double cpu = v.node_cpu_free(n);
  const double mem = v.node_mem_free(n);
  if (cpu > cpu_[n] || mem > mem_[n]) gained = true;
  cpu_[n] = cpu;
  mem_[n] = mem;
  const auto types = static_cast<DeviceTypeId>(types_);
  for (DeviceTypeId t = 0; t < types; ++t) {
    const std::size_t at = static_cast<std::size_t>(n) * types_ + t;
    if (capacity_[at] == 0) continue;
    const std::uint32_t f = v.free().free_on(n, t);
    if (f > free_[at]) gained = true;
    free_[at] = f;
  }
  return gained;
}

} // namespace dlsim
