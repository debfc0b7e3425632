// CSV fields as RFC 4180 has them: a field with a comma, a double quote or a line break is
// quoted, its quotes doubled. Job ids and policy reasons are free text from traces and code.
#pragma once

#include <fmt/format.h>

#include <cstring>
#include <string_view>

namespace dlsim {

// A loop of four compares rather than find_first_of, which looks each character up in the
// set with memchr: this runs on every job id of a million-row jobs.csv.
inline bool csv_needs_quotes(std::string_view s) {
  for (char c : s) {
    if (c == ',' || c == '"' || c == '\r' || c == '\n') return true;
  }
  return false;
}

// The most characters write_csv_field writes for `s`: every character a quote, doubled, and
// the two quotes around.
inline std::size_t csv_field_max(std::string_view s) {
  return 2 * s.size() + 2;
}

// Writes the field at `p`, which has room for csv_field_max(s), and returns its end.
inline char* write_csv_field(char* p, std::string_view s) {
  if (!csv_needs_quotes(s)) {
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    return p + s.size();
  }
  *p++ = '"';
  for (char c : s) {
    if (c == '"') *p++ = '"';
    *p++ = c;
  }
  *p++ = '"';
  return p;
}

inline void append_csv_field(fmt::memory_buffer& buf, std::string_view s) {
  const std::size_t at = buf.size();
  buf.resize(at + csv_field_max(s));
  char* end = write_csv_field(buf.data() + at, s);
  buf.resize(static_cast<std::size_t>(end - buf.data()));
}

} // namespace dlsim
