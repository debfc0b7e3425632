#include "policies/holder_set.h"

#include <algorithm>

namespace dlsim {

bool HolderSet::insert(JobId j) {
  if (in_.size() <= j) in_.resize(static_cast<std::size_t>(j) + 1, 0);
  if (in_[j]) return false;
  in_[j] = 1;
  ids_.insert(std::upper_bound(ids_.begin(), ids_.end(), j), j);
  return true;
}

std::size_t HolderSet::erase(JobId j) {
  if (count(j) == 0) return 0;
  in_[j] = 0;
  ids_.erase(std::lower_bound(ids_.begin(), ids_.end(), j));
  return 1;
}

} // namespace dlsim
