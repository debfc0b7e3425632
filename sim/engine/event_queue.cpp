// A 4-ary heap: shallower than a binary heap, and its four children share a cache line or two,
// which makes pop (the hot operation) cheaper on large queues.
#include "sim/engine/event_queue.h"

#include <algorithm>

namespace dlsim {

void EventQueue::push(SimTime time, EventKind kind, std::uint32_t subject,
                      std::uint32_t generation) {
  if (kind == EventKind::kWakeup) {
    push_wakeup(time);
    return;
  }
  add(Entry{time, kind, subject, generation, next_seq_++});
}

void EventQueue::push_wakeup(SimTime time) {
  auto [it, fresh] = wakeups_.try_emplace(time, 0);
  ++it->second;
  if (fresh) add(Entry{time, EventKind::kWakeup, 0, 0, next_seq_++});
}

void EventQueue::add(const Entry& e) {
  heap_.push_back(e);
  sift_up(heap_.size() - 1);
}

Event EventQueue::top() const {
  const Entry& e = heap_.front();
  Event out{e.time, e.kind, e.subject, e.generation, 1};
  if (e.kind == EventKind::kWakeup) out.count = wakeups_.at(e.time);
  return out;
}

Event EventQueue::pop() {
  const Entry& e = heap_.front();
  Event out{e.time, e.kind, e.subject, e.generation, 1};
  if (e.kind == EventKind::kWakeup) {
    auto it = wakeups_.find(e.time);
    out.count = it->second;
    wakeups_.erase(it);
  }
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
  return out;
}

void EventQueue::sift_up(std::size_t i) {
  Entry moving = heap_[i];
  while (i > 0) {
    std::size_t parent = (i - 1) / kArity;
    if (!before(moving, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = moving;
}

void EventQueue::sift_down(std::size_t i) {
  const std::size_t n = heap_.size();
  Entry moving = heap_[i];
  while (true) {
    std::size_t first = i * kArity + 1;
    if (first >= n) break;
    std::size_t best = first;
    std::size_t last = std::min(first + kArity, n);
    for (std::size_t c = first + 1; c < last; ++c) {
      if (before(heap_[c], heap_[best])) best = c;
    }
    if (!before(heap_[best], moving)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = moving;
}

} // namespace dlsim
