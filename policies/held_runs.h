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
    const auto at =
        static_cast<std::size_t>(std::lower_bound(keys_.begin(), keys_.end(), k) - keys_.begin());
    keys_.insert(keys_.begin() + static_cast<std::ptrdiff_t>(at), k);
    jobs_.insert(jobs_.begin() + static_cast<std::ptrdiff_t>(at), j);
    devices_.insert(devices_.begin() + static_cast<std::ptrdiff_t>(at), devices);
    summed_ = std::min(summed_, at);
  }
  // Removes the holder under key k; false (and nothing changes) when no holder has that key.
  bool erase(const Key& k) {
    const auto at =
        static_cast<std::size_t>(std::lower_bound(keys_.begin(), keys_.end(), k) - keys_.begin());
    if (at == keys_.size() || keys_[at] != k) return false;
    keys_.erase(keys_.begin() + static_cast<std::ptrdiff_t>(at));
    jobs_.erase(jobs_.begin() + static_cast<std::ptrdiff_t>(at));
    devices_.erase(devices_.begin() + static_cast<std::ptrdiff_t>(at));
    summed_ = std::min(summed_, at);
    return true;
  }
  [[nodiscard]] std::size_t size() const { return keys_.size(); }
  void clear() {
    keys_.clear();
    jobs_.clear();
    devices_.clear();
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
    sum();
    return [this, &waiting, job_of, advance, next = waiting.begin(),
            pos = std::size_t{0}](WalkItem& item) mutable {
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
  std::vector<std::uint64_t> prefix_;  // [i] devices_ summed over the first i entries
  std::size_t summed_ = 0;             // prefix_ is right up to entry summed_
};

} // namespace dlsim
