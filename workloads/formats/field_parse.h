// Parsing one CSV field into a number with an error that names the file, line and column.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dlsim {

struct FieldError {
  std::string what; // "expected a number, got 'abc'"
};

// Each returns nullopt for an empty (or absent) field, and throws FieldError for a bad one.
std::optional<double> parse_double_field(const char* text);
std::optional<std::int64_t> parse_int_field(const char* text);

namespace field_detail {

// The plain forms nearly every field has, "-"? digits ("." digits)?, read in one scan without
// the call to std::from_chars and the strlen before it (a million-job trace has several million
// such fields). A double is exact by Clinger's fast path: a mantissa of at most 2^53 and a power
// of ten of at most 10^22 are both exact doubles, and one IEEE division rounds their quotient
// correctly, which is what from_chars returns too. Anything else (an exponent, a longer
// mantissa, a '+', a bad character) says false and the caller takes the general path.
inline constexpr std::array<double, 23> kPowersOfTen = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

inline bool plain_double(const char* p, double& out) {
  const bool negative = *p == '-';
  p += negative ? 1 : 0;
  std::uint64_t mantissa = 0;
  int digits = 0; // of the mantissa, leading zeros included (at most 19 keep it in 64 bits)
  while (*p >= '0' && *p <= '9') {
    mantissa = mantissa * 10 + static_cast<std::uint64_t>(*p - '0');
    ++digits;
    ++p;
  }
  if (digits == 0) return false;
  int decimals = 0;
  if (*p == '.') {
    ++p;
    while (*p >= '0' && *p <= '9') {
      mantissa = mantissa * 10 + static_cast<std::uint64_t>(*p - '0');
      ++decimals;
      ++p;
    }
    if (decimals == 0) return false; // "5.": from_chars decides
  }
  constexpr std::uint64_t kExact = std::uint64_t{1} << 53;
  if (*p != '\0' || digits + decimals > 19 || mantissa > kExact ||
      decimals >= static_cast<int>(kPowersOfTen.size()))
    return false;
  const double v = static_cast<double>(mantissa) / kPowersOfTen[static_cast<std::size_t>(decimals)];
  out = negative ? -v : v;
  return true;
}

// "-"? digits, at most 18 of them (so no overflow), and nothing else.
inline bool plain_int(const char* p, std::int64_t& out) {
  const bool negative = *p == '-';
  p += negative ? 1 : 0;
  // Unsigned, so that a longer run of digits wraps (defined) before it is refused below; a
  // signed sum overflowed there (the sanitizer build caught it on a 20-digit field).
  std::uint64_t v = 0;
  int digits = 0;
  while (*p >= '0' && *p <= '9') {
    v = v * 10 + static_cast<std::uint64_t>(*p - '0');
    ++digits;
    ++p;
  }
  if (*p != '\0' || digits == 0 || digits > 18) return false;
  const auto magnitude = static_cast<std::int64_t>(v); // below 10^18: exact
  out = negative ? -magnitude : magnitude;
  return true;
}

// A non-empty field that is not a plain form: its value, or a FieldError (never no value).
double parse_double_general(const char* text);
std::int64_t parse_int_general(const char* text);

} // namespace field_detail

// The same as parse_double_field and parse_int_field, the value in `out` (left alone for an
// empty field, so that it may hold the default) and presence as the result: GCC passes a
// std::optional<double> through memory in pieces, and reading it back whole stalled (a failed
// store-to-load forwarding) on every field of the native reader, present or not.
inline bool double_field(const char* text, double& out) {
  if (text == nullptr || *text == '\0') return false;
  if (field_detail::plain_double(text, out)) return true;
  out = field_detail::parse_double_general(text);
  return true;
}

inline bool int_field(const char* text, std::int64_t& out) {
  if (text == nullptr || *text == '\0') return false;
  if (field_detail::plain_int(text, out)) return true;
  out = field_detail::parse_int_general(text);
  return true;
}

inline std::optional<double> parse_double_field(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  double v = 0;
  if (field_detail::plain_double(text, v)) return v;
  return field_detail::parse_double_general(text);
}

inline std::optional<std::int64_t> parse_int_field(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  std::int64_t v = 0;
  if (field_detail::plain_int(text, v)) return v;
  return field_detail::parse_int_general(text);
}

} // namespace dlsim
