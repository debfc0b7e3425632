// Shortest round-trip text for the doubles of a YAML tree.
#include "sim/config/yaml_numbers.h"

#include <fmt/format.h>

#include <charconv>
#include <string>
#include <system_error>

namespace dlsim {

namespace {

void shorten_scalar(YAML::Node& n) {
  const std::string& text = n.Scalar();
  // Only what yaml-cpp's double encoding produces: long, with a decimal point or an exponent.
  if (text.size() < 16 || text.find_first_of(".eE") == std::string::npos) return;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return;
  std::string shortest = fmt::format("{}", value); // shortest text that reads back exactly
  if (shortest.size() < text.size()) n = shortest;
}

} // namespace

void shorten_doubles(YAML::Node node) {
  if (node.IsScalar()) {
    shorten_scalar(node);
  } else if (node.IsSequence()) {
    for (YAML::Node child : node)
      shorten_doubles(child);
  } else if (node.IsMap()) {
    for (auto kv : node)
      shorten_doubles(kv.second);
  }
}

} // namespace dlsim
