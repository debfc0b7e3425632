// Finds repeated job ids while a trace is read: an open-addressing hash set whose ids live back
// to back in one buffer. A node-based std::unordered_set<std::string> spent about a quarter of
// a million-job replay in allocation, cache misses and freeing (docs/performance.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

class UniqueIds {
public:
  // Records `id` and returns true, or returns false when it was recorded before. Membership is
  // all it answers: nothing iterates it, so its hash order never reaches an output.
  bool insert(std::string_view id) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    const std::uint64_t h = hash(id);
    const std::uint64_t tag = h >> 32;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
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
  static std::uint64_t hash(std::string_view s) { return std::hash<std::string_view>{}(s); }

  [[nodiscard]] std::string_view at(std::size_t index) const {
    const std::size_t begin = index == 0 ? 0 : ends_[index - 1];
    return std::string_view(bytes_).substr(begin, ends_[index] - begin);
  }

  // Doubles the table (load factor stays at most 1/2, so probes stay short) and re-inserts
  // every id from its bytes.
  void grow() {
    std::vector<std::uint64_t> old(slots_.empty() ? 1024 : slots_.size() * 2, 0);
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t k = 0; k < count_; ++k) {
      const std::uint64_t h = hash(at(k));
      std::size_t i = h & mask;
      while (slots_[i] != 0)
        i = (i + 1) & mask;
      slots_[i] = ((h >> 32) << 32) | (k + 1);
    }
  }

  std::string bytes_;                // every id, back to back
  std::vector<std::uint64_t> ends_;  // id k is bytes_[ends_[k - 1], ends_[k])
  std::vector<std::uint64_t> slots_; // 0 = empty, else (hash >> 32) << 32 | (id index + 1)
  std::size_t count_ = 0;
};

} // namespace dlsim
