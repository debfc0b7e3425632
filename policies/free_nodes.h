// The nodes with at least k free devices of a type, in increasing id order, from the runtime's
// free-device buckets (FreeIndex keeps the nodes with exactly k free): a scan over every node
// for a job's workers (View::workers_fitting_on is 0 on a node with fewer free devices than a
// worker takes) visits only the nodes that could hold one. Under a standing queue most nodes are
// full, so this is a few nodes instead of the whole cluster.
#pragma once

#include "sim/runtime/free_index.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dlsim {

// Calls fn(n) for every node with at least k free devices of type t (k >= 1), in increasing id
// order, until fn returns false. O(those nodes x non-empty buckets from k up).
template <class Fn>
void for_nodes_with_at_least(const FreeIndex& free, DeviceTypeId t, std::uint32_t k, Fn&& fn) {
  struct Cursor {
    FreeIndex::Nodes::Iterator at, end;
  };
  // A node is in exactly one bucket (its free count): merging the buckets by node id gives each
  // once, in id order.
  std::vector<Cursor> cursors;
  for (std::uint32_t c = std::max<std::uint32_t>(k, 1); c <= free.max_per_node(t); ++c) {
    const FreeIndex::Nodes nodes = free.nodes_with(t, c);
    if (!nodes.empty()) cursors.push_back({nodes.begin(), nodes.end()});
  }
  for (;;) {
    Cursor* pick = nullptr;
    for (Cursor& c : cursors) {
      if (c.at != c.end && (pick == nullptr || *c.at < *pick->at)) pick = &c;
    }
    if (pick == nullptr) return;
    const NodeId node = *pick->at;
    ++pick->at;
    if (!fn(node)) return;
  }
}

} // namespace dlsim
