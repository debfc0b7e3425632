// A 4-ary heap: shallower than a binary heap, and its four children share a cache line or two,
// which makes pop (the hot operation) cheaper on large queues.
#include "sim/engine/event_queue.h"

#include <utility>

namespace dlsim {

namespace {
constexpr std::size_t kArity = 4;
}

void EventQueue::push(SimTime time, EventKind kind, std::uint32_t subject,
                      std::uint32_t generation) {
  heap_.push_back(Event{time, kind, subject, generation, next_seq_++});
  sift_up(heap_.size() - 1);
}

Event EventQueue::pop() {
  Event out = heap_.front();
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
  return out;
}

void EventQueue::sift_up(std::size_t i) {
  Event moving = heap_[i];
  while (i > 0) {
    std::size_t parent = (i - 1) / kArity;
    if (!event_before(moving, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = moving;
}

void EventQueue::sift_down(std::size_t i) {
  const std::size_t n = heap_.size();
  Event moving = heap_[i];
  while (true) {
    std::size_t first = i * kArity + 1;
    if (first >= n) break;
    std::size_t best = first;
    std::size_t last = std::min(first + kArity, n);
    for (std::size_t c = first + 1; c < last; ++c) {
      if (event_before(heap_[c], heap_[best])) best = c;
    }
    if (!event_before(heap_[best], moving)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = moving;
}

} // namespace dlsim
