#include "workloads/formats/csv_rows.h"

#include <algorithm>
#include <string_view>

namespace dlsim {

std::vector<std::string> read_csv_header(const std::string& file) {
  std::vector<std::string> out;
  try {
    io::LineReader lines(file, open_plain_or_gzip(file));
    char* line = lines.next_line();
    if (line == nullptr) return out;
    std::string_view rest(line);
    auto trim = [](std::string_view s) {
      auto junk = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '"'; };
      while (!s.empty() && junk(s.front()))
        s.remove_prefix(1);
      while (!s.empty() && junk(s.back()))
        s.remove_suffix(1);
      return s;
    };
    while (true) {
      auto comma = rest.find(',');
      out.emplace_back(trim(rest.substr(0, comma)));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  } catch (const io::error::base& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
  if (out.size() == 1 && out[0].empty()) out.clear();
  return out;
}

std::optional<std::string> read_first_line(const std::string& file) {
  try {
    io::LineReader lines(file, open_plain_or_gzip(file));
    char* line = lines.next_line();
    if (line == nullptr) return std::nullopt;
    std::string s = line;
    while (!s.empty() && (s.back() == '\r' || s.back() == ' '))
      s.pop_back();
    return s;
  } catch (const io::error::base& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
}

bool has_column(const std::vector<std::string>& header, std::string_view name) {
  return std::find(header.begin(), header.end(), name) != header.end();
}

void finish_trace(Trace& trace, std::size_t not_run) {
  if (not_run > 0) {
    trace.warnings.push_back(
        fmt::format("{}: {} jobs with a duration of 0 s are not replayed", trace.file, not_run));
  }
  if (trace.jobs.empty() && trace.skipped == 0)
    throw InputError(trace.file + ": the trace has no jobs");
}

void check_csv_header(Trace& trace, const std::vector<std::string>& header,
                      std::span<const char* const> known, std::span<const char* const> required,
                      const char* format) {
  const std::string& file = trace.file;
  if (header.empty()) {
    throw InputError(fmt::format("{}: empty file: expected a {} CSV header line", file, format));
  }
  for (const char* name : required) {
    if (std::find(header.begin(), header.end(), name) == header.end()) {
      throw InputError(fmt::format(
          "{}:1: {}: required column of the {} format missing from the header (found: {})", file,
          name, format, fmt::join(header, ",")));
    }
  }
  std::vector<std::string> unknown;
  for (const auto& h : header) {
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return h == k; })) {
      unknown.push_back(h);
    }
  }
  if (!unknown.empty()) {
    trace.warnings.push_back(fmt::format("{}: ignoring columns the {} format does not define: {}",
                                         file, format, fmt::join(unknown, ", ")));
  }
}

} // namespace dlsim
