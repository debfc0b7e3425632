// Seconds from integer microseconds, as text: exactly what fmt::format("{}", to_seconds(t))
// writes ("12.5", "3600", "-0.25"), without the shortest-float search. Writing a million-job
// jobs.csv would spend about a tenth of the run in that search (docs/performance.md).
//
// Why the text is the same: for 100 <= |t| < 10^15, the decimal t / 10^6 with its trailing
// zeros dropped has at most 15 significant digits, and to_seconds(t) is the double nearest to
// it (t is exact in a double and IEEE division rounds correctly). Two distinct decimals of at
// most 15 significant digits never round to the same double (DBL_DIG = 15), so that decimal is
// the shortest one that reads back as the double: the one fmt prints. fmt switches to an
// exponent below 1e-4 and at 1e16 and above; those times, and the rest, go through fmt.
//
// The write_* functions put the text at a raw pointer with room for kMaxNumberChars and return
// its end (jobs.csv formats a row into a buffer it has sized once, ChunkWriter); the append_*
// ones add it to an fmt::memory_buffer.
#pragma once

#include "sim/engine/time.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace dlsim {

// The most characters any write_* below writes: fmt's longest double ("-2.2250738585072014e-308",
// 24), an int64 (20) or a fast-path time (16 digits, a sign and a point) all fit.
constexpr std::size_t kMaxNumberChars = 32;

namespace seconds_text_detail {

// "00" "01" ... "99": the six digits of a time's fraction, two per table read (fmt's "{:06}"
// zero-pads them through its format spec and was 15-20% slower on trace-like times).
inline constexpr char kPairs[] = "00010203040506070809"
                                 "10111213141516171819"
                                 "20212223242526272829"
                                 "30313233343536373839"
                                 "40414243444546474849"
                                 "50515253545556575859"
                                 "60616263646566676869"
                                 "70717273747576777879"
                                 "80818283848586878889"
                                 "90919293949596979899";

inline char* put_pair(char* p, unsigned v) { // v < 100
  std::memcpy(p, kPairs + std::size_t{2} * v, 2);
  return p + 2;
}

} // namespace seconds_text_detail

// An unsigned integer in decimal, straight at the pointer: fmt's compiled format writes two
// digits at a time from its own table and, measured on 20 million values, is as fast as a
// hand-written digit writer (docs/performance.md).
inline char* write_uint(char* p, std::uint64_t v) {
  return fmt::format_to(p, FMT_COMPILE("{}"), v);
}

inline char* write_seconds(char* p, SimTime t) {
  constexpr SimTime kFastMax = 999'999'999'999'999; // 15 digits
  if (t == 0) {
    *p = '0';
    return p + 1;
  }
  if (t < -kFastMax || t > kFastMax || (t > -100 && t < 100))
    return fmt::format_to(p, FMT_COMPILE("{}"), to_seconds(t));
  if (t < 0) {
    *p++ = '-';
    t = -t;
  }
  const auto u = static_cast<std::uint64_t>(t);
  p = write_uint(p, u / kMicrosPerSecond);
  auto frac = static_cast<unsigned>(u % kMicrosPerSecond);
  if (frac == 0) return p;
  // Six digits with the point before them, then the trailing zeros dropped (frac > 0, so at
  // least one digit stays).
  *p++ = '.';
  seconds_text_detail::put_pair(p, frac / 10000);
  seconds_text_detail::put_pair(p + 2, frac / 100 % 100);
  seconds_text_detail::put_pair(p + 4, frac % 100);
  int n = 6;
  while (p[n - 1] == '0')
    --n;
  return p + n;
}

// Any double, as fmt::format("{}", v) writes it; through write_seconds when v is a whole
// number of microseconds (jobs.csv's solo_s and slowdown are rounded to them), that is when v
// is exactly to_seconds(k) for the integer k nearest v * 10^6: then fmt's text for v is its
// text for to_seconds(k). Zero goes through fmt, which writes -0.0 as "-0".
inline char* write_decimal(char* p, double v) {
  const double k = std::round(v * 1e6);
  if (v != 0 && std::fabs(k) < 1e15 && k / 1e6 == v)
    return write_seconds(p, static_cast<SimTime>(k));
  return fmt::format_to(p, FMT_COMPILE("{}"), v);
}

inline void append_seconds(fmt::memory_buffer& buf, SimTime t) {
  const std::size_t at = buf.size();
  buf.resize(at + kMaxNumberChars);
  char* end = write_seconds(buf.data() + at, t);
  buf.resize(static_cast<std::size_t>(end - buf.data()));
}

inline void append_decimal(fmt::memory_buffer& buf, double v) {
  const std::size_t at = buf.size();
  buf.resize(at + kMaxNumberChars);
  char* end = write_decimal(buf.data() + at, v);
  buf.resize(static_cast<std::size_t>(end - buf.data()));
}

} // namespace dlsim
