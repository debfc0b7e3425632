// parse_double_field and parse_int_field: the one-scan path for plain decimals gives the same
// value as std::from_chars, bit for bit, and everything else still goes through from_chars with
// the same errors.
#include "workloads/formats/field_parse.h"

#include <catch2/catch.hpp>

#include <bit>
#include <charconv>
#include <cstdint>
#include <random>
#include <string>

using dlsim::FieldError;
using dlsim::parse_double_field;
using dlsim::parse_int_field;

namespace {

std::uint64_t bits(double v) {
  return std::bit_cast<std::uint64_t>(v);
}

std::string error_of(const char* text, bool integer) {
  try {
    if (integer)
      (void)parse_int_field(text);
    else
      (void)parse_double_field(text);
  } catch (const FieldError& e) {
    return e.what;
  }
  return "";
}

} // namespace

TEST_CASE("plain decimals read as the nearest double, as from_chars reads them", "[formats]") {
  // 0.293 = 293 / 1000: both exact doubles, one correctly rounded division; 0.1 + 0.2 style
  // sums are not involved.
  CHECK(bits(*parse_double_field("0.293")) == bits(293.0 / 1000.0));
  CHECK(bits(*parse_double_field("0.293")) == bits(0.293));
  CHECK(*parse_double_field("890") == 890.0);
  CHECK(*parse_double_field("007.50") == 7.5);
  CHECK(*parse_double_field("-2.5") == -2.5);
  // "-0" is negative zero, as from_chars gives it.
  CHECK(bits(*parse_double_field("-0")) == bits(-0.0));
  CHECK(bits(*parse_double_field("0")) == bits(0.0));
  // 2^53 = 9007199254740992 is the largest mantissa taken in one scan; 2^53 + 1 is not an exact
  // double and goes to from_chars, which rounds it to even: 2^53.
  CHECK(*parse_double_field("9007199254740992") == 9007199254740992.0);
  CHECK(*parse_double_field("9007199254740993") == 9007199254740992.0);
  // 22 decimals (10^22 is the largest exact power of ten) and 23.
  CHECK(bits(*parse_double_field("0.0000000000000000000001")) == bits(1e-22));
  CHECK(bits(*parse_double_field("0.00000000000000000000001")) == bits(1e-23));
  // Forms the scan leaves to from_chars: an exponent, "5.", ".5".
  CHECK(*parse_double_field("1e3") == 1000.0);
  CHECK(*parse_double_field("5.") == 5.0);
  CHECK(*parse_double_field(".5") == 0.5);
  CHECK_FALSE(parse_double_field("").has_value());
  CHECK_FALSE(parse_double_field(nullptr).has_value());
}

TEST_CASE("bad numbers keep from_chars' errors", "[formats]") {
  CHECK(error_of("12abc", false) == "expected a number, got '12abc'");
  CHECK(error_of("-", false) == "expected a number, got '-'");
  CHECK(error_of("+5", false) == "expected a number, got '+5'");
  CHECK(error_of("1.2.3", false) == "expected a number, got '1.2.3'");
  CHECK(error_of("inf", false) == "expected a number, got 'inf'");
  CHECK(error_of("1e999", false) == "expected a number, got '1e999'");
  CHECK(error_of("4.5", true) == "expected an integer, got '4.5'");
  CHECK(error_of("x", true) == "expected an integer, got 'x'");
  CHECK(error_of("--1", true) == "expected an integer, got '--1'");
  // 2^63 does not fit an int64 and is 9.2e18 > 9e15 as a double.
  CHECK(error_of("9223372036854775808", true) == "expected an integer, got '9223372036854775808'");
}

TEST_CASE("plain integers read in one scan, longer and '4.0' ones through from_chars",
          "[formats]") {
  CHECK(*parse_int_field("1") == 1);
  CHECK(*parse_int_field("-17") == -17);
  CHECK(*parse_int_field("007") == 7);
  // 18 digits: the longest one scan takes; 19 (INT64_MAX) go through from_chars.
  CHECK(*parse_int_field("999999999999999999") == 999999999999999999);
  CHECK(*parse_int_field("9223372036854775807") == INT64_MAX);
  CHECK(*parse_int_field("4.0") == 4); // pandas' integers
  CHECK_FALSE(parse_int_field("").has_value());
}

TEST_CASE("random decimals read the same as std::from_chars, bit for bit", "[formats]") {
  // Mantissas of 1 to 19 digits with 0 to 22 decimals, both signs: a wrong power of ten, a lost
  // digit or a double rounding would differ from from_chars somewhere in these.
  std::mt19937_64 gen(7); // NOLINT(cert-msc32-c,cert-msc51-cpp): a fixed sample on purpose
  for (int i = 0; i < 200000; ++i) {
    const int digits = 1 + static_cast<int>(gen() % 19);
    std::string text = (gen() % 4 == 0) ? "-" : "";
    std::string number;
    for (int d = 0; d < digits; ++d)
      number += static_cast<char>('0' + gen() % 10);
    const int decimals = static_cast<int>(gen() % 23);
    if (decimals > 0 && decimals < digits)
      number.insert(number.size() - static_cast<std::size_t>(decimals), ".");
    text += number;
    double expected = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), expected);
    REQUIRE(ec == std::errc());
    REQUIRE(ptr == text.data() + text.size());
    INFO(text);
    REQUIRE(bits(*parse_double_field(text.c_str())) == bits(expected));
  }
}
