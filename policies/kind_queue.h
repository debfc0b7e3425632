// A queue in submission order that blocks per device kind, FIFO's (fifo.cpp): a job that cannot
// start reserves the kinds of the device types it can use, and a later job may start only on
// types of kinds that no earlier waiting job reserved. What makes it fast lives here, so that a
// policy reads as its algorithm: each job's kinds as a bitmask taken at arrival, a count per kind
// of the queued jobs that can use it (a pass ends once no kind is left open), and jobs whose kinds
// are all reserved stepped over without reading their requests (a long queue behind a blocked
// head is walked at every event).
#pragma once

#include "policies/placement.h"
#include "sim/cluster/device_catalog.h"
#include "sim/runtime/view.h"

#include <array>
#include <bit>
#include <cstdint>
#include <list>
#include <optional>
#include <vector>

namespace dlsim {

using KindMask = std::uint32_t; // bit k: DeviceKind k
static_assert(kDeviceKinds <= 32, "KindMask holds one bit per device kind");

class KindQueue {
public:
  struct Entry {
    JobId job;
    KindMask kinds; // the kinds of the job's compatible types
  };
  using Iterator = std::list<Entry>::iterator;

  // One walk of the queue in order: the kinds reserved so far by jobs that did not start, and
  // how many kinds some queued job can use are still open.
  struct Pass {
    KindMask reserved = 0;
    std::size_t open = 0;
  };

  // Job j joins the back (an arrival, or a failed job handed back).
  void push(JobId j, const View& view) {
    if (kind_of_.empty()) {
      for (const DeviceType& t : view.cluster().types)
        kind_of_.push_back(static_cast<std::size_t>(t.kind));
    }
    KindMask mask = 0;
    for (DeviceTypeId t : view.compatible_types(j))
      mask |= bit(kind_of_[t]);
    for (std::size_t k = 0; k < kDeviceKinds; ++k) {
      if (mask & bit(k)) ++waiting_on_kind_[k];
    }
    queue_.push_back(Entry{j, mask});
  }

  [[nodiscard]] bool empty() const { return queue_.empty(); }
  Iterator begin() { return queue_.begin(); }
  Iterator end() { return queue_.end(); }
  [[nodiscard]] const std::list<Entry>& entries() const { return queue_; }

  // A pass with nothing reserved yet.
  [[nodiscard]] Pass start_pass() const {
    Pass p;
    for (auto n : waiting_on_kind_)
      p.open += n > 0 ? 1 : 0;
    return p;
  }
  // Every kind the job can use is reserved by an earlier job: it can neither start nor reserve.
  static bool blocked(const Pass& p, const Entry& e) { return (e.kinds & ~p.reserved) == 0; }
  [[nodiscard]] bool kind_open(const Pass& p, DeviceTypeId t) const {
    return (p.reserved & bit(kind_of_[t])) == 0;
  }
  [[nodiscard]] std::size_t kind_of(DeviceTypeId t) const { return kind_of_[t]; }
  // The job waits: the jobs behind it may no longer start on its kinds.
  static void reserve(Pass& p, KindMask kinds) {
    const KindMask fresh = kinds & ~p.reserved;
    p.reserved |= fresh;
    p.open -= static_cast<std::size_t>(std::popcount(fresh));
  }
  // The job started: it leaves the queue; a kind no other queued job can use closes.
  Iterator erase(Iterator it, Pass& p) {
    for (std::size_t k = 0; k < kDeviceKinds; ++k) {
      if ((it->kinds & bit(k)) && --waiting_on_kind_[k] == 0 && !(p.reserved & bit(k))) --p.open;
    }
    return queue_.erase(it);
  }

  static constexpr KindMask bit(std::size_t kind) { return KindMask{1} << kind; }

private:
  std::list<Entry> queue_;
  std::vector<std::size_t> kind_of_;                          // DeviceKind of each type
  std::array<std::uint32_t, kDeviceKinds> waiting_on_kind_{}; // queued jobs that can use each kind
};

// Job j's devices on the type `want` (kNoType: none chosen) if its kind is open, else on the first
// of its compatible types, in its order of preference, whose kind is open and that has room.
std::optional<std::vector<DeviceId>> place_on_open_kind(const View& view, JobId j,
                                                        Placement placement, std::int32_t want,
                                                        const KindQueue& queue,
                                                        const KindQueue::Pass& pass);

// The heterogeneity-aware choice (type_choice.h), by position in the queue: walking it in order
// with the free devices counted per type (and the same reservations as a pass), the jobs that fit
// somewhere are admitted; then their types are exchanged to maximise summed normalized
// throughput. kNoType for a position not admitted.
std::vector<std::int32_t> queue_type_choice(const View& view, const KindQueue& queue);

} // namespace dlsim
