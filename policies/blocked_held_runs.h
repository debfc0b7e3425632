// The holders of a priority order (the jobs that hold devices), by their keys in that order, in
// sorted blocks of a few hundred entries, each with its requested devices summed as prefix sums:
// a walk that merges them with the waiting jobs (held by the policy under the same keys) hands
// the holders between two waiting jobs to PriorityPass::decide as runs (WalkItem::run), one per
// block they span, instead of one job at a time.
//
// HeldRuns (held_runs.h) keeps one sorted vector and merges its changes into it before each
// walk: O(holders) per walk once anything changed. Where the holders change at nearly every
// decision and every decision walks them (a standing queue on a large cluster), that merge
// would be a third of a policy's time. Here an insert or erase moves only the entries of its block,
// O(block), and a walk reads the blocks as they are. Handing a stretch of holders as several
// runs in a row chooses what one run would: the pass keeps a run whole when its devices are
// left and otherwise takes its jobs one by one, as it would take them from one run.
#pragma once

#include "policies/priority_pass.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace dlsim {

template <class Key>
class BlockedHeldRuns {
public:
  // Adds holder j under key k (not there yet), asking for `devices`.
  void insert(const Key& k, JobId j, std::uint32_t devices) {
    if (blocks_.empty()) blocks_.emplace_back();
    const std::size_t b = block_for(k);
    Block& blk = blocks_[b];
    const auto at = static_cast<std::size_t>(std::lower_bound(blk.keys.begin(), blk.keys.end(), k) -
                                             blk.keys.begin());
    blk.keys.insert(blk.keys.begin() + static_cast<std::ptrdiff_t>(at), k);
    blk.jobs.insert(blk.jobs.begin() + static_cast<std::ptrdiff_t>(at), j);
    blk.prefix.insert(blk.prefix.begin() + static_cast<std::ptrdiff_t>(at) + 1,
                      blk.prefix[at] + devices);
    for (std::size_t i = at + 2; i < blk.prefix.size(); ++i)
      blk.prefix[i] += devices;
    ++size_;
    if (blk.keys.size() > kSplitAbove) split(b);
  }
  // Removes the holder under key k; false (and nothing changes) when no holder has that key.
  bool erase(const Key& k) {
    if (blocks_.empty()) return false;
    const std::size_t b = block_for(k);
    Block& blk = blocks_[b];
    const auto at = static_cast<std::size_t>(std::lower_bound(blk.keys.begin(), blk.keys.end(), k) -
                                             blk.keys.begin());
    if (at == blk.keys.size() || !(blk.keys[at] == k)) return false;
    const std::uint64_t devices = blk.prefix[at + 1] - blk.prefix[at];
    blk.keys.erase(blk.keys.begin() + static_cast<std::ptrdiff_t>(at));
    blk.jobs.erase(blk.jobs.begin() + static_cast<std::ptrdiff_t>(at));
    blk.prefix.erase(blk.prefix.begin() + static_cast<std::ptrdiff_t>(at) + 1);
    for (std::size_t i = at + 1; i < blk.prefix.size(); ++i)
      blk.prefix[i] -= devices;
    --size_;
    if (blk.keys.size() < kJoinBelow) join(b);
    return true;
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  // Blocks in use (a walk hands at most one run per block between two waiting jobs).
  [[nodiscard]] std::size_t blocks() const { return blocks_.size(); }
  void clear() {
    blocks_.clear();
    size_ = 0;
  }
  // The jobs of `waiting` (a sorted container of Key, none of them here) and these holders
  // together, by increasing key: each call hands the next waiting job, or the holders before it
  // in one block. job_of(key) is a waiting key's job. The walk reads waiting, job_of and this
  // object until the decision ends: neither may change meanwhile.
  template <class Waiting, class JobOf>
  PriorityWalk walk(const Waiting& waiting, JobOf job_of) {
    return walk_with(waiting, job_of, [](auto it, const WalkItem&) { return it; });
  }
  // The same, where advance(it, item) is the first waiting key from `it` on to hand (the ones
  // before it are passed over), given what PriorityPass set in the item (WalkItem::max_need).
  template <class Waiting, class JobOf, class Advance>
  PriorityWalk walk_with(const Waiting& waiting, JobOf job_of, Advance advance) {
    return [this, &waiting, job_of, advance, next = waiting.begin(), b = std::size_t{0},
            pos = std::size_t{0}](WalkItem& item) mutable {
      next = advance(next, item);
      const bool held_left = b < blocks_.size();
      if (next != waiting.end() && (!held_left || *next < blocks_[b].keys[pos])) {
        item.job = job_of(*next++);
        return true;
      }
      if (!held_left) return false;
      const Block& blk = blocks_[b];
      std::size_t end = blk.keys.size();
      if (next != waiting.end() && !(blk.keys.back() < *next))
        end = first_not_below(blk, pos, *next);
      item.run = std::span<const JobId>(blk.jobs).subspan(pos, end - pos);
      item.run_devices = blk.prefix[end] - blk.prefix[pos];
      item.run_prefix = std::span<const std::uint64_t>(blk.prefix).subspan(pos, end - pos + 1);
      pos = end;
      if (pos == blk.keys.size()) {
        ++b;
        pos = 0;
      }
      return true;
    };
  }

private:
  // A block holds kSplitAbove entries at most, and (unless it is the only one) kJoinBelow at
  // least: an insert or erase moves a few hundred entries, and the holders of a large cluster
  // make a few dozen blocks.
  static constexpr std::size_t kSplitAbove = 512;
  static constexpr std::size_t kJoinBelow = kSplitAbove / 4;

  struct Block {
    std::vector<Key> keys;                   // sorted, not empty (but for a lone empty block)
    std::vector<JobId> jobs;                 // [i] the job of keys[i]
    std::vector<std::uint64_t> prefix = {0}; // [i] the devices of the first i entries
  };

  // The block where k belongs: the first whose last key is not below k, else the last one.
  [[nodiscard]] std::size_t block_for(const Key& k) const {
    const auto it = std::partition_point(blocks_.begin(), blocks_.end(), [&k](const Block& blk) {
      return blk.keys.empty() || blk.keys.back() < k;
    });
    const auto b = static_cast<std::size_t>(it - blocks_.begin());
    return b == blocks_.size() ? b - 1 : b;
  }

  // The first entry of blk from `from` on whose key is not below k (there is one): galloping
  // from `from`, as the runs between waiting jobs are mostly short.
  template <class K>
  static std::size_t first_not_below(const Block& blk, std::size_t from, const K& k) {
    std::size_t lo = from; // every entry before lo is below k
    std::size_t step = 1;
    while (lo + step < blk.keys.size() && blk.keys[lo + step - 1] < k) {
      lo += step;
      step *= 2;
    }
    const auto first = blk.keys.begin() + static_cast<std::ptrdiff_t>(lo);
    const auto last =
        blk.keys.begin() + static_cast<std::ptrdiff_t>(std::min(lo + step, blk.keys.size()));
    return static_cast<std::size_t>(std::lower_bound(first, last, k) - blk.keys.begin());
  }

  // Block b's second half made a block of its own, after it.
  void split(std::size_t b) {
    Block second;
    {
      Block& blk = blocks_[b];
      const std::size_t half = blk.keys.size() / 2;
      const auto mid = static_cast<std::ptrdiff_t>(half);
      second.keys.assign(blk.keys.begin() + mid, blk.keys.end());
      second.jobs.assign(blk.jobs.begin() + mid, blk.jobs.end());
      second.prefix.assign(blk.prefix.begin() + mid, blk.prefix.end());
      for (std::uint64_t& p : second.prefix)
        p -= blk.prefix[half];
      blk.keys.resize(half);
      blk.jobs.resize(half);
      blk.prefix.resize(half + 1);
    }
    blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(b) + 1, std::move(second));
  }

  // Block b, grown too small, joined with a neighbour (and split again if that made it too
  // large); a lone block stays, and is dropped once empty.
  void join(std::size_t b) {
    if (blocks_.size() == 1) {
      if (blocks_[0].keys.empty()) blocks_.clear();
      return;
    }
    const std::size_t first = b + 1 < blocks_.size() ? b : b - 1;
    Block& into = blocks_[first];
    const Block& from = blocks_[first + 1];
    const std::uint64_t base = into.prefix.back();
    into.keys.insert(into.keys.end(), from.keys.begin(), from.keys.end());
    into.jobs.insert(into.jobs.end(), from.jobs.begin(), from.jobs.end());
    for (std::size_t i = 1; i < from.prefix.size(); ++i)
      into.prefix.push_back(base + from.prefix[i]);
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(first) + 1);
    if (into.keys.size() > kSplitAbove) split(first);
  }

  std::vector<Block> blocks_; // in key order
  std::size_t size_ = 0;      // entries over all blocks
};

} // namespace dlsim
