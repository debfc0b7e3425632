// The rules, first match wins (docs/traces.md#format-auto): a directory holding
// pai_job_table.csv is pai2020; gzip data is decompressed and guessed as its text is; JSON
// is philly; ';' comment lines are swf; otherwise the CSV header's column names pick the format;
// a header-less line of 18 numbers is swf.
#include "workloads/formats/format_guess.h"

#include "sim/engine/error.h"
#include "workloads/formats/gavel.h"
#include "workloads/formats/zlib_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

namespace dlsim {

namespace {

namespace fs = std::filesystem;

struct HeaderRule {
  const char* format;
  std::vector<const char*> columns; // all must be in the header
};

// The columns each CSV format requires (its reader's required columns, or the schema's
// distinctive ones for formats with optional columns).
const std::vector<HeaderRule>& header_rules() {
  static const std::vector<HeaderRule> rules = {
      {"native", {"id", "submit_s", "workers"}},
      {"philly-csv", {"timestamp", "duration", "num_gpus"}},
      {"helios", {"job_id", "vc", "gpu_num", "node_num", "state", "submit_time"}},
      // Before tiresias: a Muri list has the tiresias columns too, but its times are in ms.
      {"muri", {"job_id", "num_gpu", "submit_time", "duration", "iteration_time"}},
      {"tiresias", {"job_id", "num_gpu", "submit_time", "duration"}},
      {"openb", {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"}},
      {"pollux", {"name", "time", "application", "num_replicas", "batch_size"}},
  };
  return rules;
}

std::vector<std::string> split_header(std::string_view line) {
  std::vector<std::string> out;
  while (true) {
    auto comma = line.find(',');
    std::string_view name = line.substr(0, comma);
    auto junk = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '"'; };
    while (!name.empty() && junk(name.front()))
      name.remove_prefix(1);
    while (!name.empty() && junk(name.back()))
      name.remove_suffix(1);
    out.emplace_back(name);
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return out;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// 18 whitespace-separated numbers: an SWF job line.
bool looks_like_swf_job(std::string_view line) {
  std::size_t fields = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
      ++i;
    if (i == line.size()) break;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
      ++i;
    std::string_view f = line.substr(start, i - start);
    if (f.find_first_not_of("0123456789.-+eE") != std::string_view::npos) return false;
    ++fields;
  }
  return fields == 18;
}

// A line of Gavel's or Shockwave's .trace: 7, 10 or 12 tab-separated fields, the first a job
// type ("Name" or "Name (batch size N)", the name starting with a letter).
bool looks_like_gavel_job(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const auto fields = static_cast<std::size_t>(std::count(line.begin(), line.end(), '\t')) + 1;
  if (fields != 7 && fields != 10 && fields != 12) return false;
  // Every job type of the published traces starts with a letter; a row of numbers is no job.
  if (std::isalpha(static_cast<unsigned char>(line.front())) == 0) return false;
  return gavel_job_type_model(line.substr(0, line.find('\t'))).has_value();
}

// The format of a file from the head of its (decompressed) text.
FormatGuess guess_from_text(const std::string& path, std::string head) {
  // A UTF-8 byte order mark, as spreadsheet programs write it: the readers skip it (libfccp's
  // LineReader, nlohmann-json), so the guess does too.
  if (head.rfind("\xEF\xBB\xBF", 0) == 0) head.erase(0, 3);
  auto first = head.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    throw InputError(path + ": empty file: nothing to guess the trace format from");
  if (head[first] == '[' || head[first] == '{' || ends_with(path, ".json")) {
    return {"philly",
            head[first] == '[' ? "JSON (an array: Philly's cluster_job_log)" : "the name (.json)"};
  }
  // The first non-blank line.
  std::size_t line_end = head.find('\n', first);
  std::string_view line = std::string_view(head).substr(
      first, line_end == std::string::npos ? std::string::npos : line_end - first);
  if (line.front() == ';') return {"swf", "the ';' header comments of SWF"};
  auto header = split_header(line);
  for (const auto& rule : header_rules()) {
    bool all = std::all_of(rule.columns.begin(), rule.columns.end(), [&](const char* c) {
      return std::find(header.begin(), header.end(), c) != header.end();
    });
    if (all) return {rule.format, fmt::format("the header ({})", fmt::join(rule.columns, ", "))};
  }
  if (looks_like_swf_job(line))
    return {"swf", "a first line of 18 numbers (an SWF job without header comments)"};
  if (looks_like_gavel_job(line)) {
    return {"gavel", "a first line of 7, 10 or 12 tab-separated fields starting with a job type "
                     "(Gavel's or Shockwave's .trace)"};
  }
  std::vector<std::string> wants;
  for (const auto& rule : header_rules())
    wants.push_back(fmt::format("{} needs {}", rule.format, fmt::join(rule.columns, ",")));
  std::string shown(line.substr(0, 200));
  if (!shown.empty() && shown.back() == '\r') shown.pop_back();
  throw InputError(fmt::format(
      "{}:1: the header matches no trace format: '{}' ({}; philly is a JSON array, swf has ';' "
      "comments or 18 "
      "numbers per line, gavel has 7, 10 or 12 tab-separated fields, pai2020 is a directory). Give "
      "--format NAME (dlsim list formats)",
      path, shown, fmt::join(wants, "; ")));
}

} // namespace

FormatGuess guess_trace_format(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const char* name : {"pai_job_table.csv", "pai_job_table.csv.gz"}) {
      if (fs::is_regular_file(fs::path(path) / name, ec)) {
        return {"pai2020", fmt::format("a directory holding {}", name)};
      }
    }
    throw InputError(fmt::format(
        "{}: a directory, and not a PAI 2020 one (no pai_job_table.csv): cannot guess its format",
        path));
  }
  // The head of the text, decompressed when the file is gzip: every format may be compressed.
  const bool gzip = is_gzip_file(path);
  std::string head(65536, '\0');
  {
    auto source = open_plain_or_gzip(path);
    std::size_t got = 0;
    while (got < head.size()) {
      int n = source->read(head.data() + got, static_cast<int>(head.size() - got));
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    head.resize(got);
  }
  if (gzip && head.empty()) throw InputError(path + ": empty gzip data: no trace to guess from");
  FormatGuess guess = guess_from_text(path, std::move(head));
  if (gzip) guess.reason += ", gzip-compressed";
  return guess;
}

} // namespace dlsim
