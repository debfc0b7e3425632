// append_seconds (sim/report/seconds_text.h) writes a time in integer microseconds as the same
// text as fmt::format("{}", to_seconds(t)), which every result file used before it: the files
// stay byte-identical. Checked on the edges of its fast path and on seeded random times.
#include "sim/engine/rng.h"
#include "sim/report/seconds_text.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

std::string via_fmt(dlsim::SimTime t) {
  return fmt::format("{}", dlsim::to_seconds(t));
}

std::string via_append(dlsim::SimTime t) {
  fmt::memory_buffer buf;
  dlsim::append_seconds(buf, t);
  return fmt::to_string(buf);
}

} // namespace

TEST_CASE("append_seconds writes what fmt writes for to_seconds", "[outputs]") {
  // Hand-picked: integral seconds, trailing zeros, the fast path's edges (100 us = 1e-4 s, the
  // last time fmt writes without an exponent; 10^15 - 1 us, 15 digits) and past them.
  CHECK(via_append(0) == "0");
  CHECK(via_append(3'600'000'000) == "3600");
  CHECK(via_append(12'500'000) == "12.5");
  CHECK(via_append(-250'000) == "-0.25");
  CHECK(via_append(6'354'296'000) == "6354.296");
  CHECK(via_append(100) == "0.0001");
  CHECK(via_append(99) == "9.9e-05"); // fmt's exponent form, through fmt
  CHECK(via_append(1) == "1e-06");
  for (dlsim::SimTime t :
       {dlsim::SimTime{100}, dlsim::SimTime{-100}, dlsim::SimTime{101}, dlsim::SimTime{999'999},
        dlsim::SimTime{1'000'001}, dlsim::SimTime{999'999'999'999'999},
        dlsim::SimTime{-999'999'999'999'999}, dlsim::SimTime{1'000'000'000'000'000},
        dlsim::SimTime{123'456'789'012'345'678}, dlsim::kMaxTime, -dlsim::kMaxTime}) {
    INFO("t = " << t);
    CHECK(via_append(t) == via_fmt(t));
  }
}

TEST_CASE("append_seconds matches fmt on random times of every magnitude", "[outputs]") {
  dlsim::Rng rng = dlsim::Rng::stream(7, "test.seconds-text");
  // Up to 10^k microseconds for k = 1..18: sub-microsecond-looking small values, trace-like
  // times, and times past the 15-digit fast path.
  for (int k = 1; k <= 18; ++k) {
    std::uint64_t bound = 1;
    for (int i = 0; i < k; ++i)
      bound *= 10;
    for (int n = 0; n < 2000; ++n) {
      auto t = static_cast<dlsim::SimTime>(rng.below(bound));
      if (n % 2 == 1) t = -t;
      // Times in whole milliseconds too, which end in zeros.
      if (n % 3 == 0) t -= t % 1000;
      INFO("t = " << t);
      REQUIRE(via_append(t) == via_fmt(t));
    }
  }
}

namespace {

std::string decimal_via_append(double v) {
  fmt::memory_buffer buf;
  dlsim::append_decimal(buf, v);
  return fmt::to_string(buf);
}

} // namespace

TEST_CASE("append_decimal writes what fmt writes for any double", "[outputs]") {
  // Whole microseconds (the fast path), other doubles (through fmt) and the signed zeros.
  CHECK(decimal_via_append(0.0) == "0");
  CHECK(decimal_via_append(-0.0) == "-0");
  CHECK(decimal_via_append(1.5) == "1.5");
  CHECK(decimal_via_append(0.1) == "0.1");
  CHECK(decimal_via_append(1.0 / 3.0) == fmt::format("{}", 1.0 / 3.0));
  CHECK(decimal_via_append(1e300) == fmt::format("{}", 1e300));
  CHECK(decimal_via_append(std::nan("")) == fmt::format("{}", std::nan("")));
  dlsim::Rng rng = dlsim::Rng::stream(7, "test.decimal-text");
  for (int n = 0; n < 20000; ++n) {
    // A ratio rounded to the microsecond as jobs.csv's slowdown is, and the raw ratio.
    const double raw = (1 + rng.uniform01() * 1e6) / (1e-3 + rng.uniform01() * 100);
    const double rounded = std::round(raw * 1e6) / 1e6;
    INFO("raw = " << fmt::format("{}", raw));
    REQUIRE(decimal_via_append(rounded) == fmt::format("{}", rounded));
    REQUIRE(decimal_via_append(raw) == fmt::format("{}", raw));
    REQUIRE(decimal_via_append(-rounded) == fmt::format("{}", -rounded));
  }
}

namespace {

std::string via_write(dlsim::SimTime t) {
  char text[dlsim::kMaxNumberChars];
  return {text, dlsim::write_seconds(text, t)};
}

std::string uint_via_write(std::uint64_t v) {
  char text[dlsim::kMaxNumberChars];
  return {text, dlsim::write_uint(text, v)};
}

} // namespace

TEST_CASE("write_seconds writes fmt's text for every time near the fast path's edges",
          "[outputs]") {
  // Every time within 2,000 us of 0 (the fmt path below 100 us, the fast path above), of every
  // power of ten (where the integer part gains a digit, 10^6 us = 1 s) and of the fast path's
  // end, 10^15 us; both signs.
  std::vector<dlsim::SimTime> centers{0};
  dlsim::SimTime power = 1;
  for (int k = 1; k <= 18; ++k) {
    power *= 10;
    centers.push_back(power);
  }
  for (dlsim::SimTime c : centers) {
    for (dlsim::SimTime d = -2000; d <= 2000; ++d) {
      const dlsim::SimTime t = c + d;
      INFO("t = " << t);
      REQUIRE(via_write(t) == via_fmt(t));
      REQUIRE(via_write(-t) == via_fmt(-t));
    }
  }
  // Every fraction length: 1.000001 .. 1.1 has 6 .. 1 decimals ("1.000001", "1.1"), and the
  // same behind a 15-digit integer part's smaller cousin (9 digits of seconds).
  for (dlsim::SimTime frac = 1; frac < 1'000'000; frac *= 10) {
    for (dlsim::SimTime whole : {dlsim::SimTime{1}, dlsim::SimTime{123'456'789}}) {
      const dlsim::SimTime t = whole * 1'000'000 + frac;
      INFO("t = " << t);
      REQUIRE(via_write(t) == via_fmt(t));
    }
  }
  CHECK(via_write(1'000'001) == "1.000001");
  CHECK(via_write(1'100'000) == "1.1");
  CHECK(via_write(-4'058'293'000) == "-4058.293");
}

TEST_CASE("write_seconds matches fmt on a million trace-like times", "[outputs]") {
  // jobs.csv's times: up to 10^7 s (10^13 us) in whole milliseconds, whole seconds, or any
  // microsecond.
  dlsim::Rng rng = dlsim::Rng::stream(11, "test.seconds-text-many");
  for (int n = 0; n < 1'000'000; ++n) {
    auto t = static_cast<dlsim::SimTime>(rng.below(10'000'000'000'000));
    if (n % 3 == 0) t -= t % 1000;
    if (n % 3 == 1) t -= t % 1'000'000;
    if (via_write(t) != via_fmt(t)) {
      INFO("t = " << t);
      REQUIRE(via_write(t) == via_fmt(t));
    }
  }
}

TEST_CASE("write_uint writes what fmt writes", "[outputs]") {
  // Every value below 100,000, then each digit count's edges 10^k - 1, 10^k, 10^k + 1, and the
  // largest uint64 (18446744073709551615, 20 digits).
  for (std::uint64_t v = 0; v < 100'000; ++v)
    REQUIRE(uint_via_write(v) == fmt::format("{}", v));
  for (std::uint64_t p = 10; p <= 10'000'000'000'000'000'000U; p *= 10) {
    for (std::uint64_t v : {p - 1, p, p + 1}) {
      INFO("v = " << v);
      REQUIRE(uint_via_write(v) == fmt::format("{}", v));
    }
    if (p > std::numeric_limits<std::uint64_t>::max() / 10) break;
  }
  CHECK(uint_via_write(std::numeric_limits<std::uint64_t>::max()) == "18446744073709551615");
  dlsim::Rng rng = dlsim::Rng::stream(7, "test.uint-text");
  for (int n = 0; n < 100'000; ++n) {
    const std::uint64_t v = rng.below(std::numeric_limits<std::uint64_t>::max()) >> (n % 64);
    INFO("v = " << v);
    REQUIRE(uint_via_write(v) == fmt::format("{}", v));
  }
}
