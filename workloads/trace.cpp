#include "workloads/trace.h"

#include "sim/engine/error.h"

namespace dlsim {

std::uint32_t StringTable::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  auto id = static_cast<std::uint32_t>(names_.size());
  names_.emplace_back(s);
  index_.emplace(names_.back(), id);
  return id;
}

void reject_row(Trace& trace, const ReadOptions& options, const std::string& message) {
  if (!options.skip_bad_jobs) throw InputError(message);
  ++trace.skipped;
  constexpr std::size_t kKeptReasons = 5;
  if (trace.skip_reasons.size() < kKeptReasons) trace.skip_reasons.push_back(message);
}

} // namespace dlsim
