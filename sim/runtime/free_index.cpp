#include "sim/runtime/free_index.h"

namespace dlsim {

void FreeIndex::init(const Cluster& c) {
  type_count_ = c.types.size();
  total_free_.assign(type_count_, 0);
  per_node_.assign(c.nodes.size() * type_count_, 0);
  buckets_.assign(type_count_, {});
  for (std::size_t t = 0; t < type_count_; ++t)
    buckets_[t].resize(c.max_per_node(static_cast<DeviceTypeId>(t)) + 1);
  for (const Device& d : c.devices) {
    ++per_node_[static_cast<std::size_t>(d.node) * type_count_ + d.type];
    ++total_free_[d.type];
  }
  for (NodeId n = 0; n < c.nodes.size(); ++n) {
    for (std::size_t i = 0; i < type_count_; ++i) {
      const auto t = static_cast<DeviceTypeId>(i); // exact: cluster_yaml.cpp bounds the types
      std::uint32_t k = free_on(n, t);
      if (k > 0) buckets_[t][k].insert(n);
    }
  }
}

// The node's tree node goes from one bucket to the other as it is (extract, then insert the
// handle): every device taken or freed moved a node, and a free and a malloc per move were
// most of the cost.
void FreeIndex::move(NodeId n, DeviceTypeId t, std::uint32_t from, std::uint32_t to) {
  auto& buckets = buckets_[t];
  if (from > 0 && to > 0) {
    buckets[to].insert(buckets[from].extract(n));
    return;
  }
  if (from > 0) buckets[from].erase(n);
  if (to > 0) buckets[to].insert(n);
}

void FreeIndex::device_taken(const Cluster& c, DeviceId d) {
  const Device& dev = c.devices[d];
  auto& count = per_node_[static_cast<std::size_t>(dev.node) * type_count_ + dev.type];
  move(dev.node, dev.type, count, count - 1);
  --count;
  --total_free_[dev.type];
}

void FreeIndex::device_freed(const Cluster& c, DeviceId d) {
  const Device& dev = c.devices[d];
  auto& count = per_node_[static_cast<std::size_t>(dev.node) * type_count_ + dev.type];
  move(dev.node, dev.type, count, count + 1);
  ++count;
  ++total_free_[dev.type];
}

} // namespace dlsim
