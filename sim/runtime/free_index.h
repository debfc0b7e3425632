// Which nodes have how many free devices of each type: lets placement find a node with k free
// devices without scanning the cluster at every decision.
#pragma once

#include "sim/cluster/cluster.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dlsim {

class FreeIndex {
  // The nodes with exactly k free devices of one type, as bits over the nodes that have at least
  // k devices of it (`nodes`, in id order): a move sets and clears a bit, with no allocation, and
  // a walk visits the set bits in id order. Bits only over the nodes that can be there keep the
  // memory at one bit per device of the type, whatever mix of node sizes the cluster has.
  struct Bucket {
    std::vector<NodeId> nodes;       // bit i stands for nodes[i]
    std::vector<std::uint64_t> bits; // bit i of word i / 64 set: nodes[i] is in the bucket
    std::vector<std::uint64_t> used; // bit w set: bits[w] != 0 (skips empty words in a walk)

    // The first set bit at or after i, or nodes.size() when none.
    [[nodiscard]] std::size_t next(std::size_t i) const {
      if (i >= nodes.size()) return nodes.size();
      std::size_t w = i / 64;
      if (std::uint64_t m = bits[w] & (~std::uint64_t{0} << (i % 64)))
        return w * 64 + static_cast<std::size_t>(std::countr_zero(m));
      std::size_t u = w + 1; // the next non-empty word, from the summary
      if (u >= bits.size()) return nodes.size();
      std::size_t s = u / 64;
      std::uint64_t m = used[s] & (~std::uint64_t{0} << (u % 64));
      while (m == 0) {
        if (++s >= used.size()) return nodes.size();
        m = used[s];
      }
      w = s * 64 + static_cast<std::size_t>(std::countr_zero(m));
      return w * 64 + static_cast<std::size_t>(std::countr_zero(bits[w]));
    }
  };

public:
  // A bucket's nodes in increasing id order; reading it allocates nothing. Valid until the index
  // next changes.
  class Nodes {
  public:
    class Iterator {
    public:
      using value_type = NodeId;
      using difference_type = std::ptrdiff_t;
      Iterator() = default;
      Iterator(const Bucket* b, std::size_t i) : b_(b), i_(i) {}
      NodeId operator*() const { return b_->nodes[i_]; }
      Iterator& operator++() {
        i_ = b_->next(i_ + 1);
        return *this;
      }
      Iterator operator++(int) {
        Iterator old = *this;
        ++*this;
        return old;
      }
      bool operator==(const Iterator& o) const { return i_ == o.i_; }

    private:
      const Bucket* b_ = nullptr;
      std::size_t i_ = 0;
    };

    explicit Nodes(const Bucket& b) : b_(&b) {}
    [[nodiscard]] Iterator begin() const { return {b_, b_->next(0)}; }
    [[nodiscard]] Iterator end() const { return {b_, b_->nodes.size()}; }
    [[nodiscard]] bool empty() const { return begin() == end(); }

  private:
    const Bucket* b_;
  };

  void init(const Cluster& cluster);
  void device_taken(const Cluster& cluster, DeviceId d);
  void device_freed(const Cluster& cluster, DeviceId d);

  [[nodiscard]] std::uint32_t free(DeviceTypeId t) const { return total_free_[t]; }
  [[nodiscard]] std::uint32_t free_on(NodeId n, DeviceTypeId t) const {
    return per_node_[static_cast<std::size_t>(n) * type_count_ + t];
  }
  // Nodes with exactly k free devices of type t, in increasing id order (none for k = 0).
  [[nodiscard]] Nodes nodes_with(DeviceTypeId t, std::uint32_t k) const {
    return Nodes(buckets_[t][k]);
  }
  // The largest k for which nodes_with(t, k) can be non-empty.
  [[nodiscard]] std::uint32_t max_per_node(DeviceTypeId t) const {
    return static_cast<std::uint32_t>(buckets_[t].size()) - 1;
  }

private:
  void move(std::size_t slot, DeviceTypeId t, std::uint32_t from, std::uint32_t to);

  std::size_t type_count_ = 0;
  std::vector<std::uint32_t> total_free_;
  std::vector<std::uint32_t> per_node_;      // [node * types + type]: free devices
  std::vector<std::vector<Bucket>> buckets_; // [type][free count]; [t][0] stays empty
  // Where node n's bit is in bucket k of type t: bit_of_[first_bit_[n * types + t] + k - 1], for
  // k from 1 to the node's devices of the type (one entry per device).
  std::vector<std::uint32_t> first_bit_;
  std::vector<std::uint32_t> bit_of_;
};

} // namespace dlsim
