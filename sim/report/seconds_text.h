// Seconds from integer microseconds, as text: exactly what fmt::format("{}", to_seconds(t))
// writes ("12.5", "3600", "-0.25"), without the shortest-float search. Writing a million-job
// jobs.csv spent about a tenth of the run in that search (docs/performance.md).
//
// Why the text is the same: for 100 <= |t| < 10^15, the decimal t / 10^6 with its trailing
// zeros dropped has at most 15 significant digits, and to_seconds(t) is the double nearest to
// it (t is exact in a double and IEEE division rounds correctly). Two distinct decimals of at
// most 15 significant digits never round to the same double (DBL_DIG = 15), so that decimal is
// the shortest one that reads back as the double: the one fmt prints. fmt switches to an
// exponent below 1e-4 and at 1e16 and above; those times, and the rest, go through fmt.
#pragma once

#include "sim/engine/time.h"

#include <cmath>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace dlsim {

inline void append_seconds(fmt::memory_buffer& buf, SimTime t) {
  constexpr SimTime kFastMax = 999'999'999'999'999; // 15 digits
  if (t == 0) {
    buf.push_back('0');
    return;
  }
  if (t < -kFastMax || t > kFastMax || (t > -100 && t < 100)) {
    fmt::format_to(fmt::appender(buf), FMT_COMPILE("{}"), to_seconds(t));
    return;
  }
  if (t < 0) {
    buf.push_back('-');
    t = -t;
  }
  fmt::format_to(fmt::appender(buf), FMT_COMPILE("{}"), t / kMicrosPerSecond);
  auto frac = static_cast<unsigned>(t % kMicrosPerSecond);
  if (frac == 0) return;
  char digits[6];
  int n = 6;
  for (int i = 5; i >= 0; --i) {
    digits[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  while (digits[n - 1] == '0')
    --n;
  buf.push_back('.');
  buf.append(digits, digits + n);
}

// Any double, as fmt::format("{}", v) writes it; through append_seconds when v is a whole
// number of microseconds (jobs.csv's solo_s and slowdown are rounded to them), that is when v
// is exactly to_seconds(k) for the integer k nearest v * 10^6: then fmt's text for v is its
// text for to_seconds(k). Zero goes through fmt, which writes -0.0 as "-0".
inline void append_decimal(fmt::memory_buffer& buf, double v) {
  const double k = std::round(v * 1e6);
  if (v != 0 && std::fabs(k) < 1e15 && k / 1e6 == v) {
    append_seconds(buf, static_cast<SimTime>(k));
    return;
  }
  fmt::format_to(fmt::appender(buf), FMT_COMPILE("{}"), v);
}

} // namespace dlsim
