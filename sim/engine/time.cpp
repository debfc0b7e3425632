#include "sim/engine/time.h"

#include <fmt/format.h>

namespace dlsim {

void check_seconds(double s, std::string_view what) {
  if (std::isnan(s)) throw InputError(fmt::format("{}: expected a time in seconds, got NaN", what));
  if (!(std::fabs(s) <= kMaxSeconds)) {
    throw InputError(fmt::format("{}: {} s is beyond dlsim's time limit of {} s (about 126 "
                                 "years; docs/runtime.md, \"Time and its limit\")",
                                 what, s, kMaxSeconds));
  }
}

SimTime time_after(SimTime now, double s, std::string_view what) {
  SimTime d = from_seconds(s, what); // |d| <= kMaxTime, so now + d cannot overflow
  SimTime at = now + d;
  if (at > kMaxTime) {
    throw InputError(fmt::format("{}: {} s after {} s ends at {} s, beyond dlsim's time limit of "
                                 "{} s (docs/runtime.md, \"Time and its limit\")",
                                 what, s, to_seconds(now), to_seconds(at), kMaxSeconds));
  }
  return at;
}

} // namespace dlsim
