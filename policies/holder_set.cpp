#include "policies/holder_set.h"

#include <algorithm>

namespace dlsim {

bool HolderSet::insert(JobId j) {
  if (in_.size() <= j) {
    in_.resize(static_cast<std::size_t>(j) + 1, 0);
    listed_.resize(in_.size(), 0);
  }
  if (in_[j]) return false;
  in_[j] = 1;
  ++size_;
  if (!listed_[j]) {
    listed_[j] = 1;
    ids_.insert(std::upper_bound(ids_.begin(), ids_.end(), j), j);
  }
  return true;
}

std::size_t HolderSet::erase(JobId j) {
  if (count(j) == 0) return 0;
  in_[j] = 0;
  --size_;
  if (ids_.size() - size_ > std::max<std::size_t>(size_, 64)) compact();
  return 1;
}

void HolderSet::compact() {
  std::size_t out = 0;
  for (JobId j : ids_) {
    if (in_[j]) {
      ids_[out++] = j;
    } else {
      listed_[j] = 0;
    }
  }
  ids_.resize(out);
}

} // namespace dlsim
