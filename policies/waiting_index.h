// The waiting jobs of a priority order by key, and also by the devices each asks for: a walk in
// key order that may pass over the jobs asking for more devices than a bound (WalkItem::max_need:
// none of them could be given any in the decision) jumps to the next job that asks no more,
// one search per distinct request, instead of stepping over every job in between.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace dlsim {

template <class Key>
class WaitingIndex {
public:
  using const_iterator = typename std::set<Key>::const_iterator;

  // Adds k (not there yet), whose job asks for `need` devices.
  void insert(const Key& k, std::uint32_t need) {
    all_.insert(k);
    auto at = std::lower_bound(by_need_.begin(), by_need_.end(), need,
                               [](const auto& entry, std::uint32_t n) { return entry.first < n; });
    if (at == by_need_.end() || at->first != need) at = by_need_.insert(at, {need, {}});
    at->second.insert(k);
  }
  // Removes k, inserted with `need`; the number removed (0 or 1), as std::set::erase.
  std::size_t erase(const Key& k, std::uint32_t need) {
    if (all_.erase(k) == 0) return 0;
    auto at = std::lower_bound(by_need_.begin(), by_need_.end(), need,
                               [](const auto& entry, std::uint32_t n) { return entry.first < n; });
    at->second.erase(k);
    return 1;
  }
  [[nodiscard]] bool empty() const { return all_.empty(); }
  [[nodiscard]] std::size_t size() const { return all_.size(); }
  [[nodiscard]] const_iterator begin() const { return all_.begin(); }
  [[nodiscard]] const_iterator end() const { return all_.end(); }

  // The first key from `from` on whose job asks for at most max_need devices, or end();
  // need_of(key) is the need it was inserted with.
  template <class NeedOf>
  const_iterator first_within(const_iterator from, std::uint64_t max_need, NeedOf need_of) const {
    if (from == all_.end() || need_of(*from) <= max_need) return from;
    const Key* best = nullptr;
    for (const auto& [need, keys] : by_need_) {
      if (need > max_need) break;
      auto it = keys.upper_bound(*from);
      if (it != keys.end() && (best == nullptr || *it < *best)) best = &*it;
    }
    return best == nullptr ? all_.end() : all_.find(*best);
  }

private:
  std::set<Key> all_;
  // (need, the keys of the jobs asking for it), by increasing need.
  std::vector<std::pair<std::uint32_t, std::set<Key>>> by_need_;
};

} // namespace dlsim
