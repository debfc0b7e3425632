// A set of (count, node) pairs in increasing order of count, then node, for counts that a node's
// devices bound (the free devices a placement model gives a node): one sorted vector of nodes per
// count. It replaces a std::set of the pairs where the pairs change at every step of a decision:
// an insert or erase moves the nodes after it in one bucket (a memmove) instead of allocating a
// tree node, and a search starts at a bucket instead of descending a tree.
#pragma once

#include "sim/cluster/cluster.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dlsim {

class NodeBuckets {
public:
  // Empties the set.
  void clear() {
    for (std::vector<NodeId>& b : buckets_)
      b.clear();
    size_ = 0;
  }
  void insert(std::uint64_t count, NodeId n) {
    if (buckets_.size() <= count) buckets_.resize(count + 1);
    std::vector<NodeId>& b = buckets_[count];
    b.insert(std::lower_bound(b.begin(), b.end(), n), n);
    ++size_;
  }
  // Removes (count, n), which is in the set.
  void erase(std::uint64_t count, NodeId n) {
    std::vector<NodeId>& b = buckets_[count];
    b.erase(std::lower_bound(b.begin(), b.end(), n));
    --size_;
  }
  [[nodiscard]] std::size_t size() const { return size_; }

  // Calls f(count, node) for the pairs with count >= from, in order, until f returns true.
  template <class F>
  void find_from(std::uint64_t from, F&& f) const {
    for (std::uint64_t k = from; k < buckets_.size(); ++k) {
      for (NodeId n : buckets_[k]) {
        if (f(k, n)) return;
      }
    }
  }
  // Calls f(count, node) for every pair, in order.
  template <class F>
  void for_each(F&& f) const {
    find_from(0, [&](std::uint64_t k, NodeId n) {
      f(k, n);
      return false;
    });
  }

private:
  std::vector<std::vector<NodeId>> buckets_; // [count] the nodes, in increasing id order
  std::size_t size_ = 0;
};

} // namespace dlsim
