// The jobs a preemptive policy has started that hold its devices (PriorityPass's holders): a
// flag by job id, so that a decision asks "does j hold?" in O(1) without building a set of its
// own, and the ids in increasing order, a flat vector that suspensions walk in id order.
#pragma once

#include "sim/workload/workload.h"

#include <cstddef>
#include <iterator>
#include <vector>

namespace dlsim {

class HolderSet {
public:
  // Adds j; false if it was there already.
  bool insert(JobId j);
  // Removes j; the number removed (0 or 1), as std::set::erase.
  std::size_t erase(JobId j);
  [[nodiscard]] std::size_t count(JobId j) const { return j < in_.size() && in_[j] ? 1 : 0; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }

  // The ids in increasing order, passing over the entries of removed ids still in the vector.
  class Iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = JobId;
    using difference_type = std::ptrdiff_t;
    using pointer = const JobId*;
    using reference = const JobId&;
    Iterator() = default;
    Iterator(const HolderSet* set, std::size_t at) : set_(set), at_(at) { skip(); }
    reference operator*() const { return set_->ids_[at_]; }
    Iterator& operator++() {
      ++at_;
      skip();
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const Iterator& o) const { return at_ == o.at_; }

  private:
    void skip() {
      while (at_ < set_->ids_.size() && set_->in_[set_->ids_[at_]] == 0)
        ++at_;
    }
    const HolderSet* set_ = nullptr;
    std::size_t at_ = 0;
  };
  [[nodiscard]] Iterator begin() const { return {this, 0}; }
  [[nodiscard]] Iterator end() const { return {this, ids_.size()}; }

private:
  std::vector<char> in_;     // [job] a holder
  std::vector<char> listed_; // [job] in ids_ (a removed id stays listed until compact())
  std::vector<JobId> ids_;   // sorted: the holders, and removed ids not yet compacted away
  std::size_t size_ = 0;     // holders
  // Drops the removed ids from ids_, once they are as many as the holders: an erase costs O(1)
  // amortized instead of moving every id after it, which is what a policy whose holders finish
  // at every event would otherwise pay. An id added again while still listed is found in place
  // (the ids are their own order).
  void compact();
};

} // namespace dlsim
