#include "workloads/formats/field_parse.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace dlsim::field_detail {

double parse_double_general(const char* text) {
  const char* end = text + std::strlen(text);
  double v = 0;
  auto [ptr, ec] = std::from_chars(text, end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) {
    throw FieldError{std::string("expected a number, got '") + text + "'"};
  }
  return v;
}

std::int64_t parse_int_general(const char* text) {
  const char* end = text + std::strlen(text);
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text, end, v);
  if (ec != std::errc() || ptr != end) {
    // Accept "4.0" (as pandas writes integers with NaNs around) but not "4.5".
    double d = 0;
    auto [p2, ec2] = std::from_chars(text, end, d);
    if (ec2 == std::errc() && p2 == end && std::isfinite(d) && d == std::floor(d) &&
        std::fabs(d) < 9e15) {
      return static_cast<std::int64_t>(d);
    }
    throw FieldError{std::string("expected an integer, got '") + text + "'"};
  }
  return v;
}

} // namespace dlsim::field_detail
