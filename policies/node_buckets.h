// A set of (count, node) pairs in increasing order of count, then node, for counts that a node's
// devices bound (the free devices a placement model gives a node): one bit set of nodes per
// count. It stands in for a std::set of the pairs where the pairs change at every step of a
// decision: an insert or erase sets or clears one bit (a decision that releases hundreds of jobs
// changes hundreds of nodes, and a sorted vector per count would pay a binary search and a
// memmove for each), and a walk in node order reads the bits with a second level of bits marking
// the words in use, so that it and clear() cost the nodes in the set, not the cluster's nodes.
#pragma once

#include "sim/cluster/cluster.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dlsim {

class NodeBuckets {
public:
  // Empties the set.
  void clear() {
    for (Bucket& b : buckets_)
      b.clear();
    size_ = 0;
  }
  // Adds (count, n), which is not in the set.
  void insert(std::uint64_t count, NodeId n) {
    if (buckets_.size() <= count) buckets_.resize(count + 1);
    buckets_[count].set(n);
    ++size_;
  }
  // Removes (count, n), which is in the set.
  void erase(std::uint64_t count, NodeId n) {
    buckets_[count].reset(n);
    --size_;
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  // Every count in the set is below this.
  [[nodiscard]] std::uint64_t counts() const { return buckets_.size(); }

  // Calls f(count, node) for the pairs with count >= from, in order, until f returns true.
  template <class F>
  void find_from(std::uint64_t from, F&& f) const {
    for (std::uint64_t k = from; k < buckets_.size(); ++k) {
      if (buckets_[k].find(k, f)) return;
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
  static constexpr std::uint64_t bit(std::size_t i) { return std::uint64_t{1} << i; }

  // The nodes of one count: bit n % 64 of words[n / 64] is node n, and bit w % 64 of
  // used[w / 64] says that words[w] is not zero.
  struct Bucket {
    std::vector<std::uint64_t> words;
    std::vector<std::uint64_t> used;

    void set(NodeId n) {
      const std::size_t w = n / 64;
      if (words.size() <= w) words.resize(w + 1, 0);
      if (used.size() <= w / 64) used.resize(w / 64 + 1, 0);
      words[w] |= bit(n % 64);
      used[w / 64] |= bit(w % 64);
    }
    void reset(NodeId n) {
      const std::size_t w = n / 64;
      words[w] &= ~bit(n % 64);
      if (words[w] == 0) used[w / 64] &= ~bit(w % 64);
    }
    // f(k, node) for each node in increasing order until it returns true; true if it did.
    template <class F>
    bool find(std::uint64_t k, F& f) const {
      for (std::size_t u = 0; u < used.size(); ++u) {
        for (std::uint64_t in_use = used[u]; in_use != 0; in_use &= in_use - 1) {
          const std::size_t w = u * 64 + static_cast<std::size_t>(std::countr_zero(in_use));
          for (std::uint64_t b = words[w]; b != 0; b &= b - 1) {
            if (f(k, static_cast<NodeId>(w * 64 + static_cast<std::size_t>(std::countr_zero(b)))))
              return true;
          }
        }
      }
      return false;
    }
    void clear() {
      for (std::size_t u = 0; u < used.size(); ++u) {
        for (std::uint64_t in_use = used[u]; in_use != 0; in_use &= in_use - 1)
          words[u * 64 + static_cast<std::size_t>(std::countr_zero(in_use))] = 0;
        used[u] = 0;
      }
    }
  };

  std::vector<Bucket> buckets_; // [count]
  std::size_t size_ = 0;
};

} // namespace dlsim
