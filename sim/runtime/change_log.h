// What changed since a reader last looked: the ids (nodes, or jobs) that the runtime marked, so
// that a policy keeping a snapshot refreshes only those instead of comparing every node or job
// at every decision. Marking is O(1) and allocates nothing once the log reached its cap; reading
// costs O(marks since the reader's stamp).
#pragma once

#include <cstdint>
#include <vector>

namespace dlsim {

class ChangeLog {
public:
  // Ids 0..ids-1. The log keeps ids + 1,024 marks before it starts over: a reader whose stamp
  // is older than that is told to look at everything, which costs it O(ids) at most once per
  // that many marks.
  void init(std::size_t ids) {
    last_.assign(ids, 0);
    entries_.clear();
    cap_ = ids + 1024;
    base_ = 0;
  }

  // Gives the log's memory back; init again before marking (Simulation::release_bookkeeping).
  void release() {
    std::vector<std::uint32_t>().swap(entries_);
    std::vector<std::uint32_t>().swap(last_);
    base_ = 0;
  }

  // Id `id` changed now.
  void mark(std::uint32_t id) {
    if (entries_.size() == cap_) start_over();
    entries_.push_back(id);
    last_[id] = static_cast<std::uint32_t>(entries_.size()); // its position + 1
  }

  // The position after the last mark: give it back to for_each_since to learn what changed
  // after this moment.
  [[nodiscard]] std::uint64_t stamp() const { return base_ + entries_.size(); }

  // Calls fn(id) once for every id marked since `since` (a stamp()), in the order of each id's
  // last mark. Returns false without calling fn when the log started over since then: every id
  // counts as changed.
  template <class Fn>
  bool for_each_since(std::uint64_t since, Fn&& fn) const {
    if (since < base_) return false;
    for (std::size_t i = since - base_; i < entries_.size(); ++i) {
      const std::uint32_t id = entries_[i];
      if (last_[id] == i + 1) fn(id); // an id marked again later is visited there
    }
    return true;
  }

private:
  void start_over() {
    for (std::uint32_t id : entries_)
      last_[id] = 0;
    base_ += entries_.size();
    entries_.clear();
  }

  std::vector<std::uint32_t> entries_; // ids in the order they were marked, repeats included
  std::vector<std::uint32_t> last_;    // [id] position + 1 of its last entry, 0: none
  std::size_t cap_ = 1024;
  std::uint64_t base_ = 0; // stamp of entries_[0]
};

// The runtime's two logs (SimState::changes, View::changes()).
struct ChangeLogs {
  // Nodes whose free devices (FreeIndex), free CPUs or free memory changed.
  ChangeLog nodes;
  // Jobs whose status, devices or rate (hence measured_iteration_s) changed.
  ChangeLog jobs;
};

} // namespace dlsim
