// The text of a JSON output file or value. A string that is not UTF-8 (a path given as raw
// bytes, a name the readers let through) is written with U+FFFD in place of each bad byte instead
// of making nlohmann-json throw: a writer never fails on what it writes, only on where.
#pragma once

#include <string>

namespace dlsim {

template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace dlsim
