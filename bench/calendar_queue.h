// A calendar queue (R. Brown, "Calendar queues: a fast O(1) priority queue implementation for
// the simulation event set problem", CACM 31(10), 1988), kept in bench/ only as the candidate
// that dlsim::EventQueue's 4-ary heap is measured against (docs/performance.md#event-queue). It
// orders events exactly as EventQueue does: (time, band, insertion order).
//
// Events are hashed by time into `days` of width `width_` on a circular `year` of buckets; each
// bucket is kept sorted, latest first, so its earliest event is at the back. A pop walks the
// days from the current one and takes a bucket's earliest event if it falls in the current
// year's day; after a whole year with none, it jumps to the earliest event directly. The
// calendar doubles (halves) its buckets when it holds twice (half) as many events as buckets,
// and sets the day's width to three times the mean gap between its earliest events, Brown's rule.
#pragma once

#include "sim/engine/event_queue.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dlsim::bench {

class CalendarQueue {
public:
  CalendarQueue() { rebuild(kMinBuckets); }

  void push(SimTime time, EventKind kind, std::uint32_t subject, std::uint32_t generation = 0) {
    if (size_ == 0 || time < day_end_ - width_) {
      // Earlier than the day being walked (or the first event): the walk restarts at its day.
      current_ = static_cast<std::size_t>(time / width_) & mask_;
      day_end_ = (time / width_ + 1) * width_;
    }
    insert(Entry{time, kind, subject, generation, next_seq_++});
    if (++size_ > 2 * buckets_.size()) rebuild(2 * buckets_.size());
  }

  Event pop() {
    for (;;) {
      for (std::size_t walked = 0; walked < buckets_.size(); ++walked) {
        std::vector<Entry>& b = buckets_[current_];
        if (!b.empty() && b.back().time < day_end_) return take(b);
        current_ = (current_ + 1) & mask_;
        day_end_ += width_;
      }
      // A whole year without an event in its day: go straight to the earliest one.
      const Entry* earliest = nullptr;
      for (std::size_t i = 0; i < buckets_.size(); ++i) {
        if (!buckets_[i].empty() &&
            (earliest == nullptr || before(buckets_[i].back(), *earliest))) {
          earliest = &buckets_[i].back();
          current_ = i;
        }
      }
      day_end_ = (earliest->time / width_ + 1) * width_;
    }
  }

  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::size_t size() const { return size_; }

private:
  struct Entry {
    SimTime time = 0;
    EventKind kind = EventKind::kArrival;
    std::uint32_t subject = 0;
    std::uint32_t generation = 0;
    std::uint64_t seq = 0;
  };
  static bool before(const Entry& a, const Entry& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.seq < b.seq;
  }
  static constexpr std::size_t kMinBuckets = 16;
  static constexpr std::size_t kWidthSample = 25;

  void insert(const Entry& e) {
    std::vector<Entry>& b = buckets_[static_cast<std::size_t>(e.time / width_) & mask_];
    // Latest first: the new event goes before the first one it precedes, scanning from the back.
    auto at = b.end();
    while (at != b.begin() && before(*(at - 1), e))
      --at;
    b.insert(at, e);
  }

  Event take(std::vector<Entry>& bucket) {
    const Entry e = bucket.back();
    bucket.pop_back();
    --size_;
    if (buckets_.size() > kMinBuckets && size_ < buckets_.size() / 2) {
      rebuild(buckets_.size() / 2);
    }
    return Event{e.time, e.kind, e.subject, e.generation, 1};
  }

  // Rehashes every event into n buckets with a width from the earliest events' mean gap.
  void rebuild(std::size_t n) {
    std::vector<Entry> all;
    all.reserve(size_);
    for (auto& b : buckets_) {
      all.insert(all.end(), b.begin(), b.end());
    }
    const std::size_t sample = std::min(all.size(), kWidthSample);
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(sample), all.end(),
                      before);
    if (sample >= 2) {
      const SimTime gap = (all[sample - 1].time - all[0].time) / static_cast<SimTime>(sample - 1);
      width_ = std::max<SimTime>(1, 3 * gap);
    }
    buckets_.assign(n, {});
    mask_ = n - 1;
    for (const Entry& e : all) {
      insert(e);
    }
    const SimTime start = all.empty() ? 0 : all[0].time;
    current_ = static_cast<std::size_t>(start / width_) & mask_;
    day_end_ = (start / width_ + 1) * width_;
  }

  std::vector<std::vector<Entry>> buckets_;
  std::size_t mask_ = 0;
  SimTime width_ = 1;
  std::size_t current_ = 0;
  SimTime day_end_ = 1;
  std::size_t size_ = 0;
  std::uint64_t next_seq_ = 0;
};

} // namespace dlsim::bench
