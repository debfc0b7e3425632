// Running jobs in order of estimated end, kept between decisions (FIFO-backfill's reservation,
// fifo_backfill.cpp). A job's estimate is fixed when it starts (its first start plus the
// requested time), but a job past it is expected to end at any moment: its end reads as `now`.
// The order a reservation walks is therefore that of the pairs (max(end, now), job) sorted, over
// the jobs with an end (kNever: no estimate, never walked). Sorting every running job at each
// decision cost O(running log running); here the jobs not yet overdue are kept by (end, job) and
// the overdue ones, which all read as `now`, by job id, so a walk reads only the jobs it visits
// (plus the overdue ones, which free their devices together at `now`).
#pragma once

#include "sim/engine/time.h"
#include "sim/workload/workload.h"

#include <set>
#include <utility>
#include <vector>

namespace dlsim {

class EstimatedEnds {
public:
  // Job j runs and is estimated to end at `end` (kNever: no estimate). A job already in is
  // replaced.
  void insert(JobId j, SimTime end) {
    erase(j);
    if (end == kNever) return;
    if (j >= end_.size()) end_.resize(static_cast<std::size_t>(j) + 1, kNever);
    end_[j] = end;
    ahead_.emplace(end, j);
  }

  // Job j no longer runs (or was never in).
  void erase(JobId j) {
    if (j >= end_.size() || end_[j] == kNever) return;
    if (ahead_.erase({end_[j], j}) == 0) overdue_.erase(j);
    end_[j] = kNever;
  }

  // Calls visit(end, job) for every job with an end, in the order of the pairs (max(end, now),
  // job) sorted, until visit returns false. `now` never decreases from one call to the next.
  template <class Visit>
  void walk(SimTime now, Visit&& visit) {
    while (!ahead_.empty() && ahead_.begin()->first <= now) {
      overdue_.insert(ahead_.begin()->second);
      ahead_.erase(ahead_.begin());
    }
    for (JobId j : overdue_) {
      if (!visit(now, j)) return;
    }
    for (const auto& [end, j] : ahead_) {
      if (!visit(end, j)) return;
    }
  }

private:
  std::set<std::pair<SimTime, JobId>> ahead_; // ends after the last walk's `now`, by (end, job)
  std::set<JobId> overdue_;                   // ends at or before it: they read as `now`
  std::vector<SimTime> end_;                  // [job] its estimated end; kNever when not in
};

} // namespace dlsim
