// The holders of a priority order (the jobs that hold devices), by their keys in that order,
// with their requested devices summed as prefix sums: a walk that merges them with the waiting
// jobs (held by the policy under the same keys) hands the holders between two waiting jobs to
// PriorityPass::decide as one run (WalkItem::run), found by a binary search, instead of one job
// at a time.
#pragma once

#include "policies/priority_pass.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dlsim {

template <class Key>
class HeldRuns {
public:
  // Adds holder j under key k (not there yet), asking for `devices`.
  void insert(const Key& k, JobId j, std::uint32_t devices) {
    if (keys_.empty() || keys_.back() < k) {
      keys_.push_back(k); // in order already (a ranking inserted in order, a key past the rest)
      jobs_.push_back(j);
      devices_.push_back(devices);
      alive_.push_back(1);
      return;
    }
    added_.push_back(Entry{k, j, devices});
    if (pending_over_bound()) apply();
  }
  // Removes the holder under key k; false (and nothing changes) when no holder has that key.
  bool erase(const Key& k) {
    const auto at =
        static_cast<std::size_t>(std::lower_bound(keys_.begin(), keys_.end(), k) - keys_.begin());
    if (at < keys_.size() && keys_[at] == k && alive_[at] != 0) {
      alive_[at] = 0;
      ++dead_;
      dead_at_.push_back(at);
      if (pending_over_bound()) apply();
      return true;
    }
    // Not in the sorted entries (or removed there and added again since): among the added.
    auto it =
        std::find_if(added_.begin(), added_.end(), [&](const Entry& e) { return e.key == k; });
    if (it == added_.end()) return false;
    *it = added_.back();
    added_.pop_back();
    return true;
  }
  [[nodiscard]] std::size_t size() const { return keys_.size() - dead_ + added_.size(); }
  void clear() {
    keys_.clear();
    jobs_.clear();
    devices_.clear();
    alive_.clear();
    added_.clear();
    dead_ = 0;
    dead_at_.clear();
    summed_ = 0;
  }
  // The jobs of `waiting` (a sorted container of Key, none of them here) and these holders
  // together, by increasing key: each call hands the next waiting job, or the run of holders
  // before it. job_of(key) is a waiting key's job. The walk reads waiting, job_of and this
  // object until the decision ends: neither may change meanwhile.
  template <class Waiting, class JobOf>
  PriorityWalk walk(const Waiting& waiting, JobOf job_of) {
    return walk_with(waiting, job_of, [](auto it, const WalkItem&) { return it; });
  }
  // The same, with only the waiting keys that offered(key) accepts (the others are passed over
  // as if they were not in `waiting`).
  template <class Waiting, class JobOf, class Offered>
  PriorityWalk walk_offered(const Waiting& waiting, JobOf job_of, Offered offered) {
    return walk_with(waiting, job_of, [&waiting, offered](auto it, const WalkItem&) {
      while (it != waiting.end() && !offered(*it))
        ++it;
      return it;
    });
  }
  // The same, where advance(it, item) is the first waiting key from `it` on to hand (the ones
  // before it are passed over), given what PriorityPass set in the item (WalkItem::max_need).
  template <class Waiting, class JobOf, class Advance>
  PriorityWalk walk_with(const Waiting& waiting, JobOf job_of, Advance advance) {
    apply();
    sum();
    return [this, &waiting, job_of, advance, next = waiting.begin(),
            pos = std::size_t{0}](WalkItem& item) mutable {
      item.run_whole = jobs_; // every holder, in the walk's order: runs are stretches of it
      next = advance(next, item);
      if (next != waiting.end() && (pos == keys_.size() || *next < keys_[pos])) {
        item.job = job_of(*next++);
        return true;
      }
      if (pos == keys_.size()) return false;
      const std::size_t end =
          next == waiting.end()
              ? keys_.size()
              : static_cast<std::size_t>(
                    std::lower_bound(keys_.begin() + static_cast<std::ptrdiff_t>(pos), keys_.end(),
                                     *next) -
                    keys_.begin());
      item.run = std::span<const JobId>(jobs_).subspan(pos, end - pos);
      item.run_devices = prefix_[end] - prefix_[pos];
      item.run_prefix = std::span<const std::uint64_t>(prefix_).subspan(pos, end - pos + 1);
      pos = end;
      return true;
    };
  }

private:
  struct Entry {
    Key key;
    JobId job;
    std::uint32_t devices;
  };

  // Changes are kept aside (added_, and dead_ entries flagged in place) and merged into the
  // sorted vectors in one pass when a walk needs them or when there are more than about the
  // square root of the entries: an insert or erase costs O(sqrt n) amortized instead of moving
  // every entry after it, which is what a policy whose holders change at every event and whose
  // walks are rare (a cluster that serves its load) would otherwise pay.
  [[nodiscard]] bool pending_over_bound() const {
    const std::size_t pending = added_.size() + dead_;
    return pending > 32 && pending * pending > keys_.size();
  }

  // The sorted vectors without the removed entries and with the added ones; prefix_ stays right
  // up to the first entry that changed. The entries between two changes are copied as ranges
  // (an added key's place found by binary search, the removed ones listed in dead_at_), not
  // one by one: a policy whose holders change at every decision pays this at each walk.
  void apply() {
    if (added_.empty() && dead_ == 0) return;
    std::sort(added_.begin(), added_.end(),
              [](const Entry& a, const Entry& b) { return a.key < b.key; });
    std::sort(dead_at_.begin(), dead_at_.end());
    std::size_t first_changed = keys_.size() - dead_ + added_.size();
    next_keys_.clear();
    next_jobs_.clear();
    next_devices_.clear();
    std::size_t i = 0;    // the next entry of keys_ to copy
    std::size_t dead = 0; // the next entry of dead_at_
    // Copies the live entries [i, end) of the sorted vectors.
    auto copy_to = [&](std::size_t end) {
      while (i < end) {
        const std::size_t stop =
            dead < dead_at_.size() && dead_at_[dead] < end ? dead_at_[dead] : end;
        next_keys_.insert(next_keys_.end(), keys_.begin() + static_cast<std::ptrdiff_t>(i),
                          keys_.begin() + static_cast<std::ptrdiff_t>(stop));
        next_jobs_.insert(next_jobs_.end(), jobs_.begin() + static_cast<std::ptrdiff_t>(i),
                          jobs_.begin() + static_cast<std::ptrdiff_t>(stop));
        next_devices_.insert(next_devices_.end(), devices_.begin() + static_cast<std::ptrdiff_t>(i),
                             devices_.begin() + static_cast<std::ptrdiff_t>(stop));
        i = stop;
        if (stop < end) { // a removed entry
          first_changed = std::min(first_changed, next_keys_.size());
          ++i;
          ++dead;
        }
      }
    };
    for (const Entry& e : added_) {
      copy_to(static_cast<std::size_t>(
          std::lower_bound(keys_.begin() + static_cast<std::ptrdiff_t>(i), keys_.end(), e.key) -
          keys_.begin()));
      first_changed = std::min(first_changed, next_keys_.size());
      next_keys_.push_back(e.key);
      next_jobs_.push_back(e.job);
      next_devices_.push_back(e.devices);
    }
    copy_to(keys_.size());
    keys_.swap(next_keys_);
    jobs_.swap(next_jobs_);
    devices_.swap(next_devices_);
    alive_.assign(keys_.size(), 1);
    added_.clear();
    dead_at_.clear();
    dead_ = 0;
    summed_ = std::min(summed_, first_changed);
  }

  // prefix_ brought up to date from the first entry that changed.
  void sum() {
    prefix_.resize(keys_.size() + 1);
    prefix_[0] = 0;
    for (std::size_t i = summed_; i < keys_.size(); ++i)
      prefix_[i + 1] = prefix_[i] + devices_[i];
    summed_ = keys_.size();
  }

  std::vector<Key> keys_;              // sorted
  std::vector<JobId> jobs_;            // [i] the job of keys_[i]
  std::vector<std::uint32_t> devices_; // [i] the devices it asks for
  std::vector<char> alive_;            // [i] 0: removed, until apply drops it
  std::size_t dead_ = 0;               // entries of alive_ that are 0
  std::vector<std::size_t> dead_at_;   // their positions, any order
  std::vector<Entry> added_;           // inserted since apply, any order
  std::vector<Key> next_keys_;         // apply's buffers, kept to avoid allocating
  std::vector<JobId> next_jobs_;
  std::vector<std::uint32_t> next_devices_;
  std::vector<std::uint64_t> prefix_; // [i] devices_ summed over the first i entries
  std::size_t summed_ = 0;            // prefix_ is right up to entry summed_
};

} // namespace dlsim
