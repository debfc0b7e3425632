// What each node had free when a policy last read it (CPU cores, memory, devices of each type),
// and which nodes have gained since. A request that fit on no node keeps fitting on none until
// some node gains (kube-scheduler's unschedulable queue waits for such an event), since fitting
// never gets harder as a node's free amounts grow: a policy that skips the tries sure to fail
// learns here which nodes to test again.
#pragma once

#include "sim/runtime/view.h"

#include <cstdint>
#include <vector>

namespace dlsim {

class NodeSnapshot {
public:
  // Reads every node, and counts each node's devices per type; the first call of a run.
  void read_all(const View& v);

  // Reads the nodes the runtime's change log marked since the last read (every node when the
  // log no longer reaches back); returns those where a free amount went up, in the log's order.
  const std::vector<NodeId>& read_changes(const View& v);

  [[nodiscard]] bool empty() const { return cpu_.empty(); }

  // Devices of type t on node n.
  [[nodiscard]] std::uint32_t capacity(NodeId n, DeviceTypeId t) const {
    return capacity_[static_cast<std::size_t>(n) * types_ + t];
  }

private:
  // Reads node n; true when its free CPUs, memory or devices of a type went up.
  bool read_node(const View& v, NodeId n);

  std::size_t types_ = 0;
  std::vector<std::uint32_t> capacity_; // [node * types + type]
  std::vector<double> cpu_, mem_;       // [node], as last read
  std::vector<std::uint32_t> free_;     // [node * types + type], as last read
  std::uint64_t stamp_ = 0;
  std::vector<NodeId> gained_; // reused
};

} // namespace dlsim
