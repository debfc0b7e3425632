// Simulated time: integer microseconds, so that event order never depends on rounding.
//
// Every conversion from seconds goes through from_seconds / from_seconds_ceil, which refuse
// anything outside [-kMaxSeconds, kMaxSeconds] (and NaN) instead of wrapping. The bound,
// kMaxSeconds = 4e9 s (about 126 years), is chosen so that
//  - absolute Unix timestamps (1.7e9 s in 2024, 4e9 s in 2096) still fit as trace times, and
//  - the sum of any two in-range times, 8e9 s = 8e15 us, stays below 2^53 us (9.007e9 s): every
//    time the simulator computes is exact both as int64 microseconds and as a double, and
//    `now + duration` can never overflow int64 (which holds 9.22e12 s).
// Scheduled events never lie beyond kMaxTime: a time computed as now + duration is checked
// again (time_after), or, for a projection that may simply never happen within the limit
// (a job's finish at a very low rate, a policy's wake-up), becomes kNever (wakeup_after).
// docs/runtime.md, "Time and its limit".
#pragma once

#include "sim/engine/error.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace dlsim {

using SimTime = std::int64_t; // microseconds since the start of the run

constexpr SimTime kMicrosPerSecond = 1'000'000;
constexpr SimTime kNever = std::numeric_limits<SimTime>::max();
constexpr double kMaxSeconds = 4e9;
constexpr SimTime kMaxTime = static_cast<SimTime>(kMaxSeconds) * kMicrosPerSecond;

constexpr double to_seconds(SimTime t) {
  return static_cast<double>(t) / kMicrosPerSecond;
}

// Throws InputError "<what>: <s> s is ..." unless -kMaxSeconds <= s <= kMaxSeconds.
void check_seconds(double s, std::string_view what);

// Nearest microsecond: for times read from traces and configs. `what` names the key, flag or
// job in the error when `s` is out of range.
inline SimTime from_seconds(double s, std::string_view what = "time") {
  if (!(std::fabs(s) <= kMaxSeconds)) check_seconds(s, what);
  return static_cast<SimTime>(std::llround(s * kMicrosPerSecond));
}

// Next microsecond at or after `s`: for projected finish times, so a job never finishes before
// its work is done.
inline SimTime from_seconds_ceil(double s, std::string_view what = "time") {
  if (!(std::fabs(s) <= kMaxSeconds)) check_seconds(s, what);
  return static_cast<SimTime>(std::ceil(s * kMicrosPerSecond));
}

// now + s, rounded to the nearest microsecond, for something that must happen (an action's
// end): InputError naming `what` when it would lie beyond kMaxTime.
SimTime time_after(SimTime now, double s, std::string_view what);

// now + s rounded up, or kNever when that lies beyond kMaxTime (or s is not finite): for
// projections that may legitimately never happen within the limit. `s` must not be negative.
inline SimTime wakeup_after(SimTime now, double s) {
  // Compare in seconds first: a huge `s` must not reach the integer conversion.
  if (!(s <= kMaxSeconds - to_seconds(now))) return kNever;
  SimTime at = now + static_cast<SimTime>(std::ceil(s * kMicrosPerSecond));
  return at <= kMaxTime ? at : kNever;
}

} // namespace dlsim
