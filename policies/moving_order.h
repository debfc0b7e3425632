// Jobs kept sorted by keys that move with time (a running job's remaining time falls, its
// attained service grows), without computing every key at every decision. Between two changes
// the runtime makes to a job (View::changes()), its key moves at a known rate (KeyMotion), so
// the order of two neighbours holds until their keys could meet: each neighbouring pair carries
// the time until which it is certain to hold, and a decision computes the keys of only the
// pairs whose time has come and of the jobs that changed. "Certain" is kept with a margin far
// wider than the rounding of the keys' arithmetic: where the margin cannot tell (keys closer
// than it, or near the floor where a key is clamped) the keys are computed exactly, so the
// order is the one sorting by freshly computed keys gives, bit for bit.
#pragma once

#include "policies/priority_pass.h"
#include "sim/engine/time.h"

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <tuple>
#include <vector>

namespace dlsim {

// (value, tie-break, job id): lower goes first.
using PassKey = std::tuple<double, std::uint8_t, JobId>;

// How a job's key value moves until the runtime next changes the job.
struct KeyMotion {
  // The value's change per second; NaN: not known (its key is computed at every decision).
  double per_s = std::numeric_limits<double>::quiet_NaN();
  // A bound on the magnitude of the terms the value is computed from besides the value itself:
  // the margin for rounding is relative to it and to the value.
  double scale = 0;
  // The value is clamped to at least this: near it the value does not move at per_s.
  double floor = -std::numeric_limits<double>::infinity();
  // With same_inputs_means_same_key: what the value (and tie-break) is computed from besides the
  // time; two jobs with equal inputs have equal keys but for their ids at any time, so their
  // order holds for as long as neither changes.
  std::array<double, 6> inputs{};
  bool same_inputs_means_same_key = false;
};

class MovingOrder {
public:
  using ExactKey = std::function<PassKey(JobId)>;
  using MotionOf = std::function<KeyMotion(JobId)>;

  // j joins at the next refresh, with devices for the prefix sums.
  void add(JobId j, std::uint32_t devices);
  // j leaves at the next refresh (nothing if it is not a member).
  void remove(JobId j);
  // The runtime changed j: its key and motion are taken anew at the next refresh (nothing if it
  // is not a member).
  void changed(JobId j);
  // Every member changed (the runtime's change log started over).
  void changed_all() { rebuild_ = true; }

  // Applies the changes and sorts the members by their keys at `now` (exact: exact(j) is the
  // key, motion(j) how it moves from now on). Both are kept and used until the next refresh.
  void refresh(SimTime now, ExactKey exact, MotionOf motion);

  // After refresh: the members by increasing key at `now`, and [i] the devices of the first i.
  [[nodiscard]] std::span<const JobId> jobs() const { return held_; }
  [[nodiscard]] std::span<const std::uint64_t> prefix() const { return prefix_; }
  [[nodiscard]] std::size_t size() const { return held_.size(); }
  // Member h's key at `now` is less than w (computed only where the margin cannot tell).
  [[nodiscard]] bool key_below(JobId h, const PassKey& w);

private:
  // kDropped: taken out while pending; its slot stays in pending_ until the next refresh (a
  // search of pending_ at every removal is linear in it, and it grows under a standing queue).
  enum class State : std::uint8_t { kPending, kHeld, kMoved, kLeaving, kDropped };
  struct Slot {
    PassKey key{};          // exact at `at`
    SimTime at = kNotKeyed; // when key was computed
    KeyMotion motion;       // since the job's last change
    JobId job = 0;
    std::uint32_t devices = 0;
    State state = State::kPending;
  };
  static constexpr SimTime kNotKeyed = std::numeric_limits<SimTime>::min();
  static constexpr SimTime kForever = std::numeric_limits<SimTime>::max();
  static constexpr SimTime kRecheck = std::numeric_limits<SimTime>::min();
  static constexpr std::uint32_t kNoSlot = std::numeric_limits<std::uint32_t>::max();

  std::uint32_t new_slot(JobId j, std::uint32_t devices);
  // The exact key of slot s at now_, computed once per time.
  const PassKey& exact(Slot& s);
  const PassKey& exact_at(std::size_t i) { return exact(slots_[slot_[i]]); }
  // Until when the order of held_[i] and held_[i + 1] (both keyed at now_) surely holds.
  [[nodiscard]] SimTime certificate(std::size_t i) const;
  void set_certificate(std::size_t i);
  void take_out_leaving();
  void erase_at(std::size_t i);
  void suspect(std::size_t i);
  void check_pair(std::size_t i);
  void fix_order();
  void move_back(std::size_t from, std::size_t to);
  void drop_removed_pending();
  void insert_pending();
  void insert_one(std::uint32_t slot);
  void rebuild();
  void sum_devices();

  std::vector<JobId> held_;           // the members in key order
  std::vector<std::uint32_t> slot_;   // [i] held_[i]'s slot
  std::vector<std::uint32_t> dev_;    // [i] held_[i]'s devices (prefix_ reads them in a row)
  std::vector<SimTime> cert_;         // [i] the pair (i, i + 1) holds until then
  std::vector<std::uint64_t> prefix_; // [i] the devices of held_[0..i)
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> slot_of_; // [job] its slot, kNoSlot if not a member
  std::vector<std::uint32_t> pending_; // slots to insert at the next refresh
  std::size_t dropped_ = 0;            // of them, kDropped
  std::vector<std::uint32_t> leaving_; // slots in held_ to take out at the next refresh
  SimTime next_due_ = kForever;        // the least of cert_ but the suspects' (or less)
  std::vector<std::size_t> suspects_;  // places of pairs made by taking members out (kRecheck)
  std::vector<std::size_t> scratch_;
  std::size_t first_changed_ = 0; // prefix_ holds before it
  bool rebuild_ = false;
  SimTime now_ = 0;
  ExactKey exact_;
  MotionOf motion_;
};

} // namespace dlsim
