// Finds repeated job ids while a trace is read: an open-addressing hash set whose ids live back
// to back in one buffer. A node-based std::unordered_set<std::string> spent about a quarter of
// a million-job replay in allocation, cache misses and freeing (docs/performance.md).
#pragma once

#include <boost/sort/spreadsort/integer_sort.hpp>

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

// True when two of `hashes` are equal (it sorts them): the fast screen for repeated ids of a
// trace read (native.cpp). A radix sort of 8 bytes an id reads and writes memory in order,
// where a hash set's probes land at random.
inline bool may_repeat(std::vector<std::uint64_t>& hashes) {
  boost::sort::spreadsort::integer_sort(hashes.begin(), hashes.end());
  return std::adjacent_find(hashes.begin(), hashes.end()) != hashes.end();
}

} // namespace dlsim
