// Which nodes have how many free devices of each type: lets placement find a node with k free
// devices in O(log nodes) instead of scanning the cluster at every decision.
#pragma once

#include "sim/cluster/cluster.h"

#include <cstdint>
#include <set>
#include <vector>

namespace dlsim {

class FreeIndex {
public:
  void init(const Cluster& cluster);
  void device_taken(const Cluster& cluster, DeviceId d);
  void device_freed(const Cluster& cluster, DeviceId d);

  [[nodiscard]] std::uint32_t free(DeviceTypeId t) const { return total_free_[t]; }
  [[nodiscard]] std::uint32_t free_on(NodeId n, DeviceTypeId t) const {
    return per_node_[static_cast<std::size_t>(n) * type_count_ + t];
  }
  // Nodes with exactly k free devices of type t, in increasing id order.
  [[nodiscard]] const std::set<NodeId>& nodes_with(DeviceTypeId t, std::uint32_t k) const {
    return buckets_[t][k];
  }
  // The largest k for which nodes_with(t, k) can be non-empty.
  [[nodiscard]] std::uint32_t max_per_node(DeviceTypeId t) const {
    return static_cast<std::uint32_t>(buckets_[t].size()) - 1;
  }

private:
  void move(NodeId n, DeviceTypeId t, std::uint32_t from, std::uint32_t to);

  std::size_t type_count_ = 0;
  std::vector<std::uint32_t> total_free_;
  std::vector<std::uint32_t> per_node_;
  std::vector<std::vector<std::set<NodeId>>> buckets_; // [type][free count]
};

} // namespace dlsim
