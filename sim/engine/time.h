// Simulated time: integer microseconds, so that event order never depends on rounding.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace dlsim {

using SimTime = std::int64_t; // microseconds since the start of the run

constexpr SimTime kMicrosPerSecond = 1'000'000;
constexpr SimTime kNever = std::numeric_limits<SimTime>::max();

constexpr double to_seconds(SimTime t) {
  return static_cast<double>(t) / kMicrosPerSecond;
}

// Nearest microsecond: for times read from traces and configs.
inline SimTime from_seconds(double s) {
  return static_cast<SimTime>(std::llround(s * kMicrosPerSecond));
}

// Next microsecond at or after `s`: for projected finish times, so a job never finishes before
// its work is done.
inline SimTime from_seconds_ceil(double s) {
  return static_cast<SimTime>(std::ceil(s * kMicrosPerSecond));
}

} // namespace dlsim
