// The future event list: a 4-ary min-heap ordered by (time, band, sequence number), in which
// the wake-ups of one instant share one entry with a count.
#pragma once

#include "sim/engine/time.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace dlsim {

// Bands order simultaneous events (lower first): a job's finish frees its devices before
// completed actions, which come before arrivals, which come before policy wake-ups. The
// scheduler itself is not an event: it runs once after every event at a timestamp is applied.
enum class EventKind : std::uint8_t {
  kJobFinish = 0,
  kActionDone = 1,
  kArrival = 2,
  kWakeup = 3,
  // The failure model's events (docs/failures.md), kept in a queue of their own: a component
  // fails, is repaired, and a job's checkpoint timer expires.
  kFailure = 4,
  kRepair = 5,
  kCheckpoint = 6,
};

// What the queue hands out. A wake-up has no subject: `count` says how many wake-ups were asked
// for at that instant (each is one event of the run); every other event has a count of 1.
struct Event {
  SimTime time = 0;
  EventKind kind = EventKind::kArrival;
  std::uint32_t subject = 0;    // job id for job events
  std::uint32_t generation = 0; // a stale event (generation != the job's) is dropped
  std::uint64_t count = 1;
};

// Total order: (time, band, insertion order). Job events of the same time and band come out in
// the order they were pushed, so the order of events -- and thus every output -- is
// deterministic. Wake-ups are all alike and alone in their band, so folding those of one
// instant into one entry changes no order: a policy asking for the same instant a hundred times
// costs one heap entry, not a hundred (util-reactive asks once per profiled job at every
// decision).
class EventQueue {
public:
  // A job event (kJobFinish, kActionDone, kArrival); a kWakeup is push_wakeup(time).
  void push(SimTime time, EventKind kind, std::uint32_t subject, std::uint32_t generation = 0);
  // A job event whose place among equal (time, band) events was taken earlier: `seq` from
  // take_seq() at that moment. An event known only later (a timer held back until it is needed)
  // then comes out exactly where it would have had it been pushed when its seq was taken.
  std::uint64_t take_seq() { return next_seq_++; }
  void push_taken(SimTime time, EventKind kind, std::uint32_t subject, std::uint32_t generation,
                  std::uint64_t seq) {
    add(Entry{time, kind, subject, generation, seq});
  }
  // One wake-up at `time`: a new entry, or one more on the entry already at that instant.
  void push_wakeup(SimTime time);
  [[nodiscard]] SimTime top_time() const { return heap_.front().time; }
  [[nodiscard]] EventKind top_kind() const { return heap_.front().kind; }
  [[nodiscard]] Event top() const;
  Event pop();
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  // Heap entries: one per job event, one per instant that has wake-ups.
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  void reserve(std::size_t n) { heap_.reserve(n); }

  // Cancelled events stay in the heap until they reach the top (the runtime drops them there).
  // A runtime whose events are mostly cancelled (rates that change often) can sweep them out:
  // when wants_sweep() says the heap has doubled since the last sweep (and holds at least
  // kSweepMin entries), sweep(cancelled) removes every event for which cancelled(event) is true
  // and restores the heap in linear time. The order of the remaining events does not change:
  // it is a total order of their keys, whatever the heap's layout. `cancelled` must say true
  // only of events that would be dropped whenever popped.
  static constexpr std::size_t kSweepMin = std::size_t{1} << 16;
  [[nodiscard]] bool wants_sweep() const { return heap_.size() >= sweep_at_; }
  template <class Cancelled>
  void sweep(Cancelled cancelled) {
    std::size_t kept = 0;
    for (const Entry& e : heap_) {
      if (cancelled(Event{e.time, e.kind, e.subject, e.generation, 1})) {
        if (e.kind == EventKind::kWakeup) wakeups_.erase(e.time);
        continue;
      }
      heap_[kept++] = e;
    }
    heap_.resize(kept);
    for (std::size_t i = kept / kArity + 1; i-- > 0;) {
      if (i < kept) sift_down(i);
    }
    sweep_at_ = std::max(kSweepMin, 2 * kept);
  }

private:
  struct Entry {
    SimTime time = 0;
    EventKind kind = EventKind::kArrival;
    std::uint32_t subject = 0;
    std::uint32_t generation = 0;
    std::uint64_t seq = 0; // insertion order: the final tie-breaker
  };
  static bool before(const Entry& a, const Entry& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.seq < b.seq;
  }
  static constexpr std::size_t kArity = 4;
  void add(const Entry& e);
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);

  std::vector<Entry> heap_;
  // The wake-ups asked for at each instant that has a wake-up entry in heap_.
  std::unordered_map<SimTime, std::uint64_t> wakeups_;
  std::uint64_t next_seq_ = 0;
  std::size_t sweep_at_ = kSweepMin;
};

} // namespace dlsim
