#include "workloads/trace.h"

#include "sim/engine/error.h"

#include <limits>
#include <stdexcept>

namespace dlsim {

std::uint32_t StringTable::intern(std::string_view s) {
  if ((names_.size() + 1) * 2 > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash(s) & mask;; i = (i + 1) & mask) {
    const std::uint32_t slot = slots_[i];
    if (slot == 0) {
      const auto id = static_cast<std::uint32_t>(names_.size());
      names_.emplace_back(s);
      slots_[i] = id + 1;
      return id;
    }
    if (names_[slot - 1] == s) return slot - 1;
  }
}

// Doubles the table (16 slots at first) and puts every name back by its hash.
void StringTable::grow() {
  if (names_.size() >= std::numeric_limits<std::uint32_t>::max() - 1)
    throw std::length_error("more than 4,294,967,294 distinct strings in one column");
  std::vector<std::uint32_t> slots(slots_.empty() ? 16 : slots_.size() * 2, 0);
  const std::size_t mask = slots.size() - 1;
  for (std::uint32_t id = 0; id < names_.size(); ++id) {
    std::size_t i = hash(names_[id]) & mask;
    while (slots[i] != 0)
      i = (i + 1) & mask;
    slots[i] = id + 1;
  }
  slots_.swap(slots);
}

void reject_row(Trace& trace, const ReadOptions& options, const std::string& message) {
  if (!options.skip_bad_jobs) throw InputError(message);
  ++trace.skipped;
  constexpr std::size_t kKeptReasons = 5;
  if (trace.skip_reasons.size() < kKeptReasons) trace.skip_reasons.push_back(message);
}

} // namespace dlsim
