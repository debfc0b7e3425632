#include "sim/runtime/free_index.h"

namespace dlsim {

namespace {

void set_bit(std::vector<std::uint64_t>& bits, std::vector<std::uint64_t>& used, std::size_t i) {
  const std::size_t w = i / 64;
  bits[w] |= std::uint64_t{1} << (i % 64);
  used[w / 64] |= std::uint64_t{1} << (w % 64);
}

void clear_bit(std::vector<std::uint64_t>& bits, std::vector<std::uint64_t>& used, std::size_t i) {
  const std::size_t w = i / 64;
  bits[w] &= ~(std::uint64_t{1} << (i % 64));
  if (bits[w] == 0) used[w / 64] &= ~(std::uint64_t{1} << (w % 64));
}

} // namespace

void FreeIndex::init(const Cluster& c) {
  type_count_ = c.types.size();
  total_free_.assign(type_count_, 0);
  per_node_.assign(c.nodes.size() * type_count_, 0);
  for (const Device& d : c.devices) {
    ++per_node_[static_cast<std::size_t>(d.node) * type_count_ + d.type];
    ++total_free_[d.type];
  }
  // Every node's devices of a type are its free count now (nothing runs before init).
  buckets_.assign(type_count_, {});
  for (std::size_t t = 0; t < type_count_; ++t)
    buckets_[t].resize(c.max_per_node(static_cast<DeviceTypeId>(t)) + 1);
  first_bit_.assign(per_node_.size(), 0);
  bit_of_.assign(c.devices.size(), 0);
  std::uint32_t next = 0; // <= devices, which cluster_yaml.cpp bounds below 2^32
  for (NodeId n = 0; n < c.nodes.size(); ++n) {
    for (std::size_t t = 0; t < type_count_; ++t) {
      const std::size_t slot = static_cast<std::size_t>(n) * type_count_ + t;
      const std::uint32_t have = per_node_[slot];
      first_bit_[slot] = next;
      for (std::uint32_t k = 1; k <= have; ++k) {
        Bucket& b = buckets_[t][k];
        bit_of_[next++] = static_cast<std::uint32_t>(b.nodes.size());
        b.nodes.push_back(n);
      }
    }
  }
  for (auto& of_type : buckets_) {
    for (Bucket& b : of_type) {
      const std::size_t words = (b.nodes.size() + 63) / 64;
      b.bits.assign(words, 0);
      b.used.assign((words + 63) / 64, 0);
    }
  }
  for (std::size_t slot = 0; slot < per_node_.size(); ++slot) {
    if (const std::uint32_t k = per_node_[slot]) {
      Bucket& b = buckets_[slot % type_count_][k];
      set_bit(b.bits, b.used, bit_of_[first_bit_[slot] + k - 1]);
    }
  }
}

// Clears the node's bit in bucket `from` and sets it in bucket `to` (a count of 0 has no bucket).
void FreeIndex::move(std::size_t slot, DeviceTypeId t, std::uint32_t from, std::uint32_t to) {
  auto& buckets = buckets_[t];
  const std::size_t first = first_bit_[slot]; // bit_of_[first + k - 1]: its bit in bucket k
  if (from > 0) clear_bit(buckets[from].bits, buckets[from].used, bit_of_[first + from - 1]);
  if (to > 0) set_bit(buckets[to].bits, buckets[to].used, bit_of_[first + to - 1]);
}

void FreeIndex::device_taken(const Cluster& c, DeviceId d) {
  const Device& dev = c.devices[d];
  const std::size_t slot = static_cast<std::size_t>(dev.node) * type_count_ + dev.type;
  auto& count = per_node_[slot];
  move(slot, dev.type, count, count - 1);
  --count;
  --total_free_[dev.type];
}

void FreeIndex::device_freed(const Cluster& c, DeviceId d) {
  const Device& dev = c.devices[d];
  const std::size_t slot = static_cast<std::size_t>(dev.node) * type_count_ + dev.type;
  auto& count = per_node_[slot];
  move(slot, dev.type, count, count + 1);
  ++count;
  ++total_free_[dev.type];
}

} // namespace dlsim
