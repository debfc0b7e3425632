#include "workloads/failure_log.h"

#include "sim/engine/error.h"
#include "sim/runtime/failure_model.h"
#include "workloads/formats/csv_row_loop.h"
#include "workloads/formats/csv_rows.h"
#include "workloads/formats/field_parse.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <unordered_map>

namespace dlsim {

namespace {

// Seconds with six decimals: a time in µs written and read back is the same µs.
std::string seconds_text(SimTime t) {
  return fmt::format("{}.{:06}", t / kMicrosPerSecond, t % kMicrosPerSecond);
}

} // namespace

std::vector<FailureRecord> load_failure_log(const std::string& file, const Cluster& cluster) {
  static constexpr std::array<const char*, 3> kColumns{"time_s", "component", "duration_s"};
  std::vector<std::string> header = read_csv_header(file);
  for (const char* column : kColumns) {
    if (!has_column(header, column)) {
      throw InputError(fmt::format("{}:1: the header has no column '{}' (the columns are {})", file,
                                   column, fmt::join(kColumns, ",")));
    }
  }
  std::vector<FailureRecord> records;
  std::unordered_map<std::uint32_t, std::pair<SimTime, unsigned>> up_at; // component: repair, line
  unsigned previous_line = 0;
  auto seconds = [](const char* cell, const char* what) {
    std::optional<double> s = parse_double_field(cell);
    if (!s || !std::isfinite(*s) || *s < 0)
      throw FieldError{fmt::format("expected {} >= 0 seconds, got '{}'", what, cell)};
    return from_seconds(*s, what);
  };
  auto on_row = [&](const std::array<char*, 3>& cells, CsvRow& row) {
    FailureRecord r;
    row.column = "time_s";
    r.time = seconds(cells[0], "a time");
    if (!records.empty() && r.time < records.back().time) {
      throw FieldError{fmt::format("{} s is earlier than line {}'s {} s: the rows must be in "
                                   "time order",
                                   cells[0], previous_line, to_seconds(records.back().time))};
    }
    row.column = "component";
    auto id = parse_component(cluster, cells[1]);
    if (!id) {
      throw FieldError{fmt::format("'{}' is no component of the cluster (device:0..{}, node:0..{}, "
                                   "link:0..{})",
                                   cells[1], cluster.devices.size() - 1, cluster.nodes.size() - 1,
                                   cluster.nodes.size() - 1)};
    }
    r.component = *id;
    row.column = "duration_s";
    r.duration = seconds(cells[2], "a duration");
    row.column = "time_s";
    auto [it, fresh] = up_at.try_emplace(r.component, r.time + r.duration, row.line);
    if (!fresh) {
      if (r.time < it->second.first) {
        throw FieldError{fmt::format("{} fails again before its repair at {} s (line {})", cells[1],
                                     to_seconds(it->second.first), it->second.second)};
      }
      it->second = {r.time + r.duration, row.line};
    }
    previous_line = row.line;
    records.push_back(r);
  };
  csv_row_loop(CsvSource{file, CsvHeader::kNamed, header.size()}, kColumns, on_row,
               [](const std::string& message) { throw InputError(message); });
  return records;
}

void write_failure_log(std::ostream& out, const Cluster& cluster,
                       const std::vector<FailureRecord>& records) {
  out << "time_s,component,duration_s\n";
  for (const FailureRecord& r : records) {
    out << seconds_text(r.time) << ',' << component_name(cluster, r.component) << ','
        << seconds_text(r.duration) << '\n';
  }
}

} // namespace dlsim
