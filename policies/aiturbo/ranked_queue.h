// The queue aiturbo and optimus rank at rounds and walk between them
// (docs/aiturbo.md#the-aiturbo-policy): each job's key of the last ranking, the jobs placed in the
// queue under their keys, and of those the ones a walk offers, the pending and suspended ones, by
// key and by shape (WaitingIndex). A placed job stays placed whatever it does until it is ranked
// again or dropped: one started since the ranking is offered again if it comes back to waiting
// first. The offered ones are brought up to date from the runtime's job change log (sync), so a
// walk offers what a walk of every placed key in order, passing over the jobs that do not wait,
// would offer, without reading each one's status, and can jump over the shapes that cannot fit.
#pragma once

#include "policies/priority_pass.h"
#include "policies/waiting_index.h"
#include "sim/runtime/change_log.h"
#include "sim/runtime/job.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace dlsim {

template <class Key>
class RankedQueue {
public:
  // An offered job's key and its shape's number (so that a walk reads it with the key), ordered
  // by the key.
  struct Offered {
    Key key;
    std::uint32_t shape;
    friend bool operator<(const Offered& a, const Offered& b) { return a.key < b.key; }
    friend bool operator<(const Offered& a, const Key& b) { return a.key < b; }
    friend bool operator<(const Key& a, const Offered& b) { return a < b.key; }
  };
  using Index = WaitingIndex<Offered, JobShape>;

  // Room for jobs 0..n-1 (their keys value-initialized, none placed).
  void resize(std::size_t n) {
    if (jobs_.size() < n) jobs_.resize(n);
  }
  [[nodiscard]] const Key& key(JobId j) const { return jobs_[j].key; }
  // j ranked under k: a placed job moves there.
  void set_key(JobId j, const Key& k) {
    Entry& e = jobs_[j];
    if (e.where == kOffered) {
      index_.erase({e.key, e.shape}, e.shape);
      index_.insert({k, e.shape}, e.shape);
    }
    e.key = k;
  }
  // j placed under its key (nothing if it is already), its status now `s`; shape_of() gives
  // its JobShape, asked once per job.
  template <class ShapeOf>
  void place(JobId j, JobStatus s, ShapeOf shape_of) {
    Entry& e = jobs_[j];
    if (e.where != kOut) return;
    if (e.shape == kNoShape) e.shape = index_.number_of(shape_of());
    settle(j, s);
  }
  // j no longer placed.
  void drop(JobId j) {
    Entry& e = jobs_[j];
    if (e.where == kOffered) index_.erase({e.key, e.shape}, e.shape);
    if (e.where == kSuspending) --suspending_;
    if (e.where == kOther) --others_placed_;
    e.where = kOut;
  }
  [[nodiscard]] bool placed(JobId j) const { return j < jobs_.size() && jobs_[j].where != kOut; }

  // The placed jobs whose status changed since the last sync (every placed job at the first,
  // or when the log started over since) brought into or out of offered(); status_of(j) is job
  // j's status now. Call it before reading offered() or any_may_wait() after a change.
  template <class StatusOf>
  void sync(const ChangeLog& log, StatusOf status_of) {
    auto refresh = [&](JobId j) {
      if (j < jobs_.size() && jobs_[j].where != kOut) settle(j, status_of(j));
    };
    if (!stamped_ || !log.for_each_since(stamp_, refresh)) {
      for (JobId j = 0; j < jobs_.size(); ++j)
        refresh(j);
    }
    stamp_ = log.stamp();
    stamped_ = true;
  }
  // The placed jobs that are pending or suspended (as of the last sync), by key; an entry's shape
  // is the number of offered().first_within's classes.
  [[nodiscard]] const Index& offered() const { return index_; }
  // Whether a placed job is pending, suspended or suspending (as of the last sync).
  [[nodiscard]] bool any_may_wait() const { return !index_.empty() || suspending_ > 0; }
  // Drops the placed jobs that are neither (as of the last sync).
  void drop_not_waiting() {
    for (JobId j : others_) {
      jobs_[j].listed = false;
      if (jobs_[j].where == kOther) jobs_[j].where = kOut;
    }
    others_.clear();
    others_placed_ = 0;
  }

private:
  static constexpr std::uint32_t kNoShape = std::numeric_limits<std::uint32_t>::max();
  // Where a job is: not placed; placed and pending or suspended (in index_); placed and
  // suspending; placed and anything else.
  enum Where : std::uint8_t { kOut, kOffered, kSuspending, kOther };
  struct Entry {
    Key key{};
    std::uint32_t shape = kNoShape;
    Where where = kOut;
    bool listed = false; // in others_
  };

  // Placed job j, its status now s.
  void settle(JobId j, JobStatus s) {
    Entry& e = jobs_[j];
    const Where now = s == JobStatus::kPending || s == JobStatus::kSuspended ? kOffered
                      : s == JobStatus::kSuspending                          ? kSuspending
                                                                             : kOther;
    if (now == e.where) return;
    if (e.where == kOffered) index_.erase({e.key, e.shape}, e.shape);
    if (e.where == kSuspending) --suspending_;
    if (e.where == kOther) --others_placed_;
    if (now == kOffered) index_.insert({e.key, e.shape}, e.shape);
    if (now == kSuspending) ++suspending_;
    e.where = now;
    if (now != kOther) return;
    // Every placed job that is neither is listed in others_ (drop_not_waiting), once; the ones
    // listed that moved on since are let go when they outnumber the others.
    ++others_placed_;
    if (!e.listed) {
      others_.push_back(j);
      e.listed = true;
    }
    if (others_.size() > 2 * others_placed_ + 64) {
      std::erase_if(others_, [this](JobId k) {
        if (jobs_[k].where == kOther) return false;
        jobs_[k].listed = false;
        return true;
      });
    }
  }

  std::vector<Entry> jobs_; // [job]
  Index index_;
  std::size_t suspending_ = 0;    // placed jobs that are suspending
  std::vector<JobId> others_;     // the placed jobs that are neither, and some that were
  std::size_t others_placed_ = 0; // placed jobs that are neither
  std::uint64_t stamp_ = 0;       // the log's stamp() at the last sync
  bool stamped_ = false;
};

} // namespace dlsim
