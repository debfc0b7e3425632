// Finds repeated job ids while a trace is read: an open-addressing hash set whose ids live back
// to back in one buffer. A node-based std::unordered_set<std::string> spent about a quarter of
// a million-job replay in allocation, cache misses and freeing (docs/performance.md).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

class UniqueIds {
public:
  [[nodiscard]] static std::uint64_t hash(std::string_view s) {
    return std::hash<std::string_view>{}(s);
  }

  // Records `id` and returns true, or returns false when it was recorded before. Membership is
  // all it answers: nothing iterates it, so its hash order never reaches an output.
  bool insert(std::string_view id) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    const std::uint64_t h = hash(id);
    const std::uint64_t tag = h >> 32;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = home(h);; i = (i + 1) & mask) {
      const std::uint64_t slot = slots_[i];
      if (slot == 0) {
        bytes_.append(id);
        ends_.push_back(bytes_.size());
        slots_[i] = (tag << 32) | ++count_; // index + 1, so that 0 means empty
        return true;
      }
      if ((slot >> 32) == tag && at(static_cast<std::uint32_t>(slot) - 1) == id) return false;
    }
  }

  [[nodiscard]] std::size_t size() const { return count_; }

private:
  // The slot where hash `h` starts: its top bits. The tag kept in a slot is the top 32 bits of
  // the hash, so a larger table finds every id's new home from its slot alone, and walking the
  // old table in order writes the new one nearly in order.
  [[nodiscard]] std::size_t home(std::uint64_t h) const { return h >> shift_; }

  [[nodiscard]] std::string_view at(std::size_t index) const {
    const std::size_t begin = index == 0 ? 0 : ends_[index - 1];
    return std::string_view(bytes_).substr(begin, ends_[index] - begin);
  }

  // Doubles the table (load factor stays at most 1/2, so probes stay short) and re-inserts
  // every id by the tag in its slot.
  void grow() {
    const std::size_t size = slots_.empty() ? 1024 : slots_.size() * 2;
    // A home is taken from the 32-bit tag, and an index must fit beside it.
    if (size > (std::uint64_t{1} << 32))
      throw std::length_error("job ids: more than 2^31 of them in one trace");
    std::vector<std::uint64_t> old(size, 0);
    old.swap(slots_);
    shift_ = 64 - std::countr_zero(size);
    const std::size_t mask = size - 1;
    for (const std::uint64_t slot : old) {
      if (slot == 0) continue;
      std::size_t i = home(slot & ~std::uint64_t{0xffffffff});
      while (slots_[i] != 0)
        i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  std::string bytes_;                // every id, back to back
  std::vector<std::uint64_t> ends_;  // id k is bytes_[ends_[k - 1], ends_[k])
  std::vector<std::uint64_t> slots_; // 0 = empty, else (hash >> 32) << 32 | (id index + 1)
  std::size_t count_ = 0;
  int shift_ = 64; // 64 - log2(slots_.size())
};

// True when two of `hashes` are equal: the fast screen for repeated ids of a trace read
// (native.cpp). The hashes are first grouped by their top bits into buckets of about 2,048 (a
// counting pass and one pass that copies them in order of bucket: memory read and written in
// order), then each bucket's hashes go into a small open-addressing table that stays in the
// cache. A radix sort of all of them (boost's spreadsort) took three times as long: 40 ms at a
// million ids, 165 ms at 3.4 million.
inline bool may_repeat(const std::vector<std::uint64_t>& hashes) {
  const std::size_t n = hashes.size();
  if (n < 2) return false;
  constexpr std::size_t kPerBucket = 2048;
  const int bits = std::min(16, static_cast<int>(std::bit_width(n / kPerBucket)));
  const std::size_t buckets = std::size_t{1} << bits;
  const auto bucket = [bits](std::uint64_t h) {
    return bits == 0 ? std::size_t{0} : static_cast<std::size_t>(h >> (64 - bits));
  };
  // start[b]: where bucket b begins in `grouped`; start[buckets] = n.
  std::vector<std::size_t> start(buckets + 1, 0);
  for (const std::uint64_t h : hashes)
    ++start[bucket(h) + 1];
  std::size_t largest = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    largest = std::max(largest, start[b + 1]);
    start[b + 1] += start[b];
  }
  std::vector<std::uint64_t> grouped(n);
  {
    std::vector<std::size_t> next(start.begin(), start.end() - 1);
    for (const std::uint64_t h : hashes)
      grouped[next[bucket(h)]++] = h;
  }
  // At most half full; 0 marks an empty slot, so a hash of 0 is remembered apart. The low bits
  // of a hash pick its slot: the top ones are the bucket's, the same for all of it.
  std::vector<std::uint64_t> table(std::bit_ceil(largest * 2));
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t size = std::bit_ceil((start[b + 1] - start[b]) * 2);
    const std::size_t mask = size - 1;
    std::fill(table.begin(), table.begin() + static_cast<std::ptrdiff_t>(size), 0);
    bool zero = false;
    for (std::size_t i = start[b]; i < start[b + 1]; ++i) {
      const std::uint64_t h = grouped[i];
      if (h == 0) {
        if (zero) return true;
        zero = true;
        continue;
      }
      std::size_t slot = static_cast<std::size_t>(h) & mask;
      for (; table[slot] != 0; slot = (slot + 1) & mask) {
        if (table[slot] == h) return true;
      }
      table[slot] = h;
    }
  }
  return false;
}

} // namespace dlsim
