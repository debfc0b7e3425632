#include "sim/engine/duration.h"

#include <array>
#include <charconv>
#include <utility>

namespace dlsim {

std::optional<double> parse_duration_s(std::string_view text) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [rest, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || text.empty()) return std::nullopt;
  const std::string_view unit(rest, static_cast<std::size_t>(end - rest));
  static constexpr std::array<std::pair<std::string_view, double>, 6> kUnits{{
      {"", 1},
      {"s", 1},
      {"m", 60},
      {"min", 60},
      {"h", 3600},
      {"d", 86400},
  }};
  for (const auto& [name, seconds] : kUnits) {
    if (unit == name) return v * seconds;
  }
  return std::nullopt;
}

} // namespace dlsim
