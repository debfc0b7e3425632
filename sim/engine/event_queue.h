// The future event list: a 4-ary min-heap ordered by (time, band, sequence number).
#pragma once

#include "sim/engine/time.h"

#include <cstdint>
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
};

struct Event {
  SimTime time = 0;
  EventKind kind = EventKind::kArrival;
  std::uint32_t subject = 0;    // job id for job events
  std::uint32_t generation = 0; // a stale event (generation != the job's) is dropped
  std::uint64_t seq = 0;        // insertion order: the final tie-breaker
};

// Total order: (time, band, seq). Two distinct events never compare equal because seq is
// unique, so the order of events -- and thus every output -- is deterministic.
inline bool event_before(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.kind != b.kind) return a.kind < b.kind;
  return a.seq < b.seq;
}

class EventQueue {
public:
  void push(SimTime time, EventKind kind, std::uint32_t subject, std::uint32_t generation = 0);
  [[nodiscard]] const Event& top() const { return heap_.front(); }
  Event pop();
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  void reserve(std::size_t n) { heap_.reserve(n); }

private:
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);

  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
};

} // namespace dlsim
