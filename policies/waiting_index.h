// The waiting jobs of a priority order by key, and also by class (the shape of each job's
// request, job_shape): a walk in key order that may pass over the jobs of some classes (those
// asking for more devices than WalkItem::max_need, or of a shape that failed placement earlier
// in the decision: PriorityPass::shape_failed) jumps to the next job of another class, one
// search per class, instead of stepping over every job in between.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace dlsim {

template <class Key, class Class>
class WaitingIndex {
public:
  using const_iterator = typename std::set<Key>::const_iterator;

  // c's number, for insert and erase (the same for as long as the index lives).
  std::uint32_t number_of(const Class& c) {
    auto [it, added] = numbers_.emplace(c, static_cast<std::uint32_t>(classes_.size()));
    if (added) {
      classes_.push_back(c);
      keys_of_.emplace_back();
    }
    return it->second;
  }
  // Adds k (not there yet), whose job is of the class numbered `number`.
  void insert(const Key& k, std::uint32_t number) {
    all_.insert(k);
    keys_of_[number].insert(k);
  }
  // Removes k, inserted with `number`; the number of keys removed (0 or 1), as std::set::erase.
  std::size_t erase(const Key& k, std::uint32_t number) {
    if (all_.erase(k) == 0) return 0;
    keys_of_[number].erase(k);
    return 1;
  }
  [[nodiscard]] bool empty() const { return all_.empty(); }
  [[nodiscard]] std::size_t size() const { return all_.size(); }
  [[nodiscard]] const_iterator begin() const { return all_.begin(); }
  [[nodiscard]] const_iterator end() const { return all_.end(); }

  // The first key from `from` on whose class pass_over(class) refuses, or end(); number(key) is
  // the number its key was inserted with.
  template <class NumberOf, class PassOver>
  const_iterator first_within(const_iterator from, NumberOf number, PassOver pass_over) const {
    if (from == all_.end() || !pass_over(classes_[number(*from)])) return from;
    const Key* best = nullptr;
    for (std::size_t c = 0; c < classes_.size(); ++c) {
      if (keys_of_[c].empty() || pass_over(classes_[c])) continue;
      auto it = keys_of_[c].upper_bound(*from);
      if (it != keys_of_[c].end() && (best == nullptr || *it < *best)) best = &*it;
    }
    return best == nullptr ? all_.end() : all_.find(*best);
  }

private:
  std::set<Key> all_;
  std::map<Class, std::uint32_t> numbers_;
  std::vector<Class> classes_;         // [number]
  std::vector<std::set<Key>> keys_of_; // [number] the keys of that class
};

} // namespace dlsim
