// The spreading candidates by kind (spread_index.h).
#include "policies/gandiva/spread_index.h"

namespace dlsim::gandiva {

void SpreadIndex::set(std::uint32_t gid, const std::optional<Entry>& entry) {
  if (entry_.size() <= gid) entry_.resize(gid + 1);
  if (const std::optional<Entry>& old = entry_[gid]) {
    auto it = by_kind_.find(old->kind);
    it->second.erase(old->candidate);
    if (it->second.empty()) by_kind_.erase(it);
  }
  entry_[gid] = entry;
  if (entry) by_kind_[entry->kind].insert(entry->candidate);
}

} // namespace dlsim::gandiva
