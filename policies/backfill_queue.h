// Waiting jobs in arrival order (a failed job rejoining at the back), also listed by how many
// devices each asks for: FIFO-backfill's queue (fifo_backfill.cpp) and Elastic-KubeFlow's
// (elastic_kubeflow.cpp). Under a standing queue most jobs ask for more devices than any type has
// free, and placement refuses them at once; a walk visits, in queue order, only the jobs that ask
// for no more than that, without touching the others.
#pragma once

#include "sim/workload/workload.h"

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace dlsim {

class BackfillQueue {
public:
  // need: the devices the job asks for (0 for a host task).
  void push(JobId j, std::uint32_t need) {
    if (j >= need_.size()) need_.resize(static_cast<std::size_t>(j) + 1, 0);
    need_[j] = need;
    order_.emplace(seq_, j);
    by_need_[need].emplace(seq_, j);
    ++seq_;
  }
  [[nodiscard]] bool empty() const { return order_.empty(); }
  [[nodiscard]] std::size_t size() const { return order_.size(); }
  [[nodiscard]] JobId front() const { return order_.begin()->second; }
  void pop_front() { erase(*order_.begin()); }

  // Calls visit(j) for every job behind the front, in queue order, that asks for at most
  // limit() devices; visit returns true when it started the job, which then leaves the queue and
  // limit() is read again (it may only shrink: starting jobs takes devices).
  template <class Limit, class Visit>
  void walk_behind_front(Limit&& limit, Visit&& visit) {
    if (order_.size() < 2) return;
    walk_after(*order_.begin(), limit, visit);
  }

  // The same over the whole queue, the front included.
  template <class Limit, class Visit>
  void walk(Limit&& limit, Visit&& visit) {
    walk_after(Entry{0, 0}, limit, visit, /*inclusive=*/true);
  }

private:
  using Entry = std::pair<std::uint64_t, JobId>; // (arrival sequence, job)
  using Entries = std::set<Entry>;

  // The walk over the jobs after `start` (or from it, inclusive) in queue order.
  template <class Limit, class Visit>
  void walk_after(const Entry& start, Limit& limit, Visit& visit, bool inclusive = false) {
    struct Cursor {
      std::uint32_t need;
      Entries* jobs;
      Entries::iterator next;
    };
    std::vector<Cursor> cursors;
    std::uint32_t most = limit();
    for (auto& [need, jobs] : by_need_) {
      if (need > most) break;
      cursors.push_back(
          {need, &jobs, inclusive ? jobs.lower_bound(start) : jobs.upper_bound(start)});
    }
    for (;;) {
      // The earliest job among the needs still within the limit.
      Cursor* pick = nullptr;
      for (Cursor& c : cursors) {
        if (c.need <= most && c.next != c.jobs->end() &&
            (pick == nullptr || c.next->first < pick->next->first))
          pick = &c;
      }
      if (pick == nullptr) return;
      const Entry entry = *pick->next;
      ++pick->next;
      if (visit(entry.second)) {
        erase(entry);
        most = limit();
      }
    }
  }

  void erase(const Entry& e) {
    by_need_[need_[e.second]].erase(e);
    order_.erase(e);
  }
  std::uint64_t seq_ = 0;
  Entries order_;                            // every waiting job
  std::map<std::uint32_t, Entries> by_need_; // the same, by devices asked; never erased keys
  std::vector<std::uint32_t> need_;          // [job] devices asked, while queued
};

} // namespace dlsim
