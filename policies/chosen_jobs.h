// The jobs a PriorityPass decision chose, in the walk's order: single jobs, and stretches of the
// runs of holders a walk hands (WalkItem::run) kept as spans, so that a run of thousands of
// holders kept whole costs one entry, not a copy of every id. When every run is a stretch of one
// vector that lists every holder in the walk's order (WalkItem::run_whole), the holders left out
// are what lies between the chosen stretches: left_out_of() finds them in O(stretches + holders
// left out) instead of reading a flag for every holder.
#pragma once

#include "sim/workload/workload.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace dlsim {

class ChosenJobs {
public:
  void clear() {
    picks_.clear();
    count_ = 0;
    listed_ = false;
  }
  void push(JobId j) {
    picks_.push_back({nullptr, 1, j});
    ++count_;
    listed_ = false;
  }
  // A stretch of a run, not empty. The span must stay valid while this object is read.
  void push_run(std::span<const JobId> run) {
    picks_.push_back({run.data(), static_cast<std::uint32_t>(run.size()), 0});
    count_ += run.size();
    listed_ = false;
  }
  // Jobs chosen, and entries (a job or a stretch each).
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::size_t picks() const { return picks_.size(); }
  // Keeps the first `picks` entries.
  void truncate(std::size_t picks) {
    for (std::size_t k = picks; k < picks_.size(); ++k)
      count_ -= picks_[k].count;
    picks_.resize(std::min(picks, picks_.size()));
    listed_ = false;
  }
  // f(job) for every job of the entries [from, to), in order.
  template <class F>
  void for_each(std::size_t from, std::size_t to, F f) const {
    for (std::size_t k = from; k < to; ++k) {
      const Pick& p = picks_[k];
      if (p.first == nullptr) {
        f(p.job);
      } else {
        for (std::uint32_t i = 0; i < p.count; ++i)
          f(p.first[i]);
      }
    }
  }
  // The single jobs (not stretches of runs), in order: f(job) until it returns true.
  template <class F>
  void find_single(F f) const {
    for (const Pick& p : picks_) {
      if (p.first == nullptr && f(p.job)) return;
    }
  }
  // Every chosen job in order, as one vector (built on demand, kept until a change).
  [[nodiscard]] const std::vector<JobId>& list() const {
    if (!listed_) {
      list_.clear();
      list_.reserve(count_);
      for_each(0, picks_.size(), [this](JobId j) { list_.push_back(j); });
      listed_ = true;
    }
    return list_;
  }
  // Appends to `out` the jobs of `whole` in no chosen stretch, in whole's order. Every stretch
  // must lie inside `whole`, and the stretches come in whole's order without overlapping (a
  // walk hands its runs so).
  void left_out_of(std::span<const JobId> whole, std::vector<JobId>& out) const {
    const JobId* at = whole.data();
    for (const Pick& p : picks_) {
      if (p.first == nullptr) continue;
      out.insert(out.end(), at, p.first);
      at = p.first + p.count;
    }
    out.insert(out.end(), at, whole.data() + whole.size());
  }

private:
  struct Pick {
    const JobId* first; // a stretch's first job, or null for a single job
    std::uint32_t count;
    JobId job; // a single job
  };
  std::vector<Pick> picks_;
  std::size_t count_ = 0;
  mutable std::vector<JobId> list_; // list()'s cache
  mutable bool listed_ = false;
};

} // namespace dlsim
