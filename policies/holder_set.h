// The jobs a preemptive policy has started that hold its devices (PriorityPass's holders): a
// flag by job id, so that a decision asks "does j hold?" in O(1) without building a set of its
// own, and the ids in increasing order, a flat vector that suspensions walk in id order.
#pragma once

#include "sim/workload/workload.h"

#include <cstddef>
#include <vector>

namespace dlsim {

class HolderSet {
public:
  // Adds j; false if it was there already.
  bool insert(JobId j);
  // Removes j; the number removed (0 or 1), as std::set::erase.
  std::size_t erase(JobId j);
  [[nodiscard]] std::size_t count(JobId j) const { return j < in_.size() && in_[j] ? 1 : 0; }
  [[nodiscard]] std::size_t size() const { return ids_.size(); }
  [[nodiscard]] bool empty() const { return ids_.empty(); }
  // In increasing id order.
  [[nodiscard]] std::vector<JobId>::const_iterator begin() const { return ids_.begin(); }
  [[nodiscard]] std::vector<JobId>::const_iterator end() const { return ids_.end(); }

private:
  std::vector<char> in_;   // [job] in ids_
  std::vector<JobId> ids_; // sorted: an insert or erase moves the ids after it (a memmove)
};

} // namespace dlsim
