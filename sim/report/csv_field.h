// CSV fields as RFC 4180 has them: a field with a comma, a double quote or a line break is
// quoted, its quotes doubled. Job ids and policy reasons are free text from traces and code.
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace dlsim {

inline bool csv_needs_quotes(std::string_view s) {
  return s.find_first_of(",\"\r\n") != std::string_view::npos;
}

inline void append_csv_field(fmt::memory_buffer& buf, std::string_view s) {
  if (!csv_needs_quotes(s)) {
    buf.append(s.data(), s.data() + s.size());
    return;
  }
  buf.push_back('"');
  for (char c : s) {
    if (c == '"') buf.push_back('"');
    buf.push_back(c);
  }
  buf.push_back('"');
}

} // namespace dlsim
