// The runtime's lists of jobs by where they stand -- waiting, placed, over -- kept current on
// every status change, so that a policy need not rebuild them from its callbacks
// (View::pending_jobs, running_jobs, finished_jobs; docs/policies.md#what-a-policy-sees).
//
// Each list is in the order jobs entered it: pending in arrival order, with a preempted job
// re-entering at the back when it is suspended; running in order of placement; finished in order
// of finishing. Intrusive doubly-linked lists over dense job ids: moving a job is O(1) and
// allocation-free, which matters because every start, suspend and finish moves one.
#pragma once

#include "sim/runtime/job.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace dlsim {

enum class JobList : std::uint8_t {
  kNone,    // not submitted yet
  kPending, // pending, binding (some pods bound, the gang not placed) or suspended
  kRunning, // holding its devices: starting, running, suspending, migrating or resizing
  kOver,    // finished or cancelled
};

constexpr JobList list_of(JobStatus s) {
  switch (s) {
  case JobStatus::kFuture:
    return JobList::kNone;
  case JobStatus::kPending:
  case JobStatus::kBinding:
  case JobStatus::kSuspended:
    return JobList::kPending;
  case JobStatus::kFinished:
  case JobStatus::kCancelled:
    return JobList::kOver;
  default:
    return JobList::kRunning;
  }
}

class JobLists {
public:
  static constexpr JobId kEnd = kNoJob;

  // A walk over one list. Changing the state of the job under the walk is safe (a policy starting
  // the pending job it is looking at): the walk goes on to the job that followed it. Changing
  // other jobs of the walked list while walking is not; copy the range into a vector first. A
  // walk that finds its next job moved to another list throws rather than wander off into it.
  class Range {
  public:
    class Iterator {
    public:
      using value_type = JobId;
      using difference_type = std::ptrdiff_t;
      Iterator() = default;
      Iterator(const JobLists* lists, JobList list, JobId at)
          : lists_(lists), list_(list), at_(at), after_(at == kEnd ? kEnd : lists->next_[at]) {}
      JobId operator*() const { return at_; }
      Iterator& operator++() {
        const JobId next = lists_->in_[at_] == list_ ? lists_->next_[at_] : after_;
        if (next != kEnd && lists_->in_[next] != list_) {
          throw std::logic_error("a job list changed under a walk over it: copy the list first");
        }
        at_ = next;
        after_ = at_ == kEnd ? kEnd : lists_->next_[at_];
        return *this;
      }
      Iterator operator++(int) {
        Iterator before = *this;
        ++*this;
        return before;
      }
      bool operator==(const Iterator& o) const { return at_ == o.at_; }

    private:
      const JobLists* lists_ = nullptr;
      JobList list_ = JobList::kNone;
      JobId at_ = kEnd;
      JobId after_ = kEnd; // the next job when the walk arrived here
    };

    Range(const JobLists& lists, JobList list) : lists_(&lists), list_(list) {}
    [[nodiscard]] Iterator begin() const { return {lists_, list_, lists_->head_[index(list_)]}; }
    [[nodiscard]] Iterator end() const { return {lists_, list_, kEnd}; }
    [[nodiscard]] std::uint32_t size() const { return lists_->size_[index(list_)]; }
    [[nodiscard]] bool empty() const { return size() == 0; }
    // The job that has been in the list longest; the list must not be empty.
    [[nodiscard]] JobId front() const { return lists_->head_[index(list_)]; }

  private:
    const JobLists* lists_;
    JobList list_;
  };

  void resize(std::size_t jobs) {
    next_.assign(jobs, kEnd);
    prev_.assign(jobs, kEnd);
    in_.assign(jobs, JobList::kNone);
    head_.fill(kEnd);
    tail_.fill(kEnd);
    size_.fill(0);
  }

  // Gives the lists' memory back: every list is empty afterwards and no job may be tracked
  // again (Simulation::release_bookkeeping, once the run is over).
  void release() {
    std::vector<JobId>().swap(next_);
    std::vector<JobId>().swap(prev_);
    std::vector<JobList>().swap(in_);
    head_.fill(kEnd);
    tail_.fill(kEnd);
    size_.fill(0);
  }

  // Puts j at the back of the list for status s, unless it is in that list already.
  void track(JobId j, JobStatus s) {
    const JobList to = list_of(s);
    if (in_[j] == to) return;
    unlink(j);
    in_[j] = to;
    if (to == JobList::kNone) return;
    const auto l = index(to);
    prev_[j] = tail_[l];
    next_[j] = kEnd;
    if (tail_[l] == kEnd)
      head_[l] = j;
    else
      next_[tail_[l]] = j;
    tail_[l] = j;
    ++size_[l];
  }

  [[nodiscard]] JobList list_of_job(JobId j) const { return in_[j]; }
  [[nodiscard]] Range range(JobList l) const { return {*this, l}; }

private:
  static constexpr std::size_t index(JobList l) { return static_cast<std::size_t>(l); }

  void unlink(JobId j) {
    if (in_[j] == JobList::kNone) return;
    const auto l = index(in_[j]);
    if (prev_[j] == kEnd)
      head_[l] = next_[j];
    else
      next_[prev_[j]] = next_[j];
    if (next_[j] == kEnd)
      tail_[l] = prev_[j];
    else
      prev_[next_[j]] = prev_[j];
    --size_[l];
  }

  std::vector<JobId> next_;
  std::vector<JobId> prev_;
  std::vector<JobList> in_;
  std::array<JobId, 4> head_{kEnd, kEnd, kEnd, kEnd};
  std::array<JobId, 4> tail_{kEnd, kEnd, kEnd, kEnd};
  std::array<std::uint32_t, 4> size_{};
};

} // namespace dlsim
