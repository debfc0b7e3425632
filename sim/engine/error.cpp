#include "sim/engine/error.h"

#include <fmt/format.h>

namespace dlsim {

std::string quote_input(std::string_view text, std::size_t max) {
  if (text.size() <= max) return fmt::format("'{}'", text);
  return fmt::format("'{}...' ({} bytes)", text.substr(0, max), text.size());
}

} // namespace dlsim
