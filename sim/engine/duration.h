// Durations as people write them where dlsim asks for seconds: `90`, `90s`, `1.5m`, `2h`, `7d`
// (docs/experiments.md#durations). One parser for the config keys of seconds, policy parameters of
// seconds and the command line's --until.
#pragma once

#include <optional>
#include <string_view>

namespace dlsim {

// Seconds for a plain number or a number followed by one unit: s, m or min, h, d. Nullopt for
// anything else (an empty string, another unit, a space, a sign after the number). The number
// may be negative or fractional; the caller checks the range.
std::optional<double> parse_duration_s(std::string_view text);

} // namespace dlsim
