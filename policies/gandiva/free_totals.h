// The free devices of each type that nobody holds and no group reserves, cluster-wide (the sum of
// free_count over the nodes), kept between decisions: spreading compares it with the waiting
// jobs' demand at every decision, and under load only a few nodes change between two of them.
#pragma once

#include "sim/runtime/view.h"

#include <cstdint>
#include <vector>

namespace dlsim::gandiva {

class State;

class FreeTotals {
public:
  // Node n's reservations changed (State::reserve, State::unreserve).
  void mark(NodeId n) {
    if (n >= marked_.size()) marked_.resize(n + 1, 0);
    if (marked_[n]) return;
    marked_[n] = 1;
    nodes_.push_back(n);
  }
  // The sum of free_count(view, st, n, t) over every node n: node counts are read again only for
  // the nodes marked here or in the runtime's node log since the last call (whose free devices
  // changed), every node the first time and when the log started over.
  std::size_t of_type(const View& view, const State& st, DeviceTypeId t);

private:
  void recount(const View& view, const State& st, NodeId n);
  std::size_t types_ = 0;
  std::vector<std::uint32_t> count_; // [node * types + type] free_count when last read
  std::vector<std::size_t> total_;   // [type] their sum
  bool known_ = false;
  std::uint64_t stamp_ = 0; // the node log's stamp at the last call
  std::vector<NodeId> nodes_;
  std::vector<char> marked_; // [node] in nodes_
};

} // namespace dlsim::gandiva
