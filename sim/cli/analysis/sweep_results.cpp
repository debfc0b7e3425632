// results.csv from a sweep directory's runs/<id>/summary.json and error.txt files.
#include "sim/cli/analysis/sweep_results.h"
#include "sim/report/json_text.h"

#include "sim/cli/result_json.h"
#include "sim/cli/sweep_csv.h"
#include "sim/config/path_probe.h"
#include "sim/engine/error.h"
#include "sim/report/writers.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace dlsim {

std::string sweep_run_dir(const std::string& dir, const SweepRun& run) {
  return (fs::path(dir) / "runs" / run.id).string();
}

std::string sweep_error_file(const std::string& dir, const SweepRun& run) {
  return (fs::path(sweep_run_dir(dir, run)) / "error.txt").string();
}

void record_run_error(const std::string& dir, const SweepRun& run, const std::string& error) {
  std::string one_line = error;
  std::replace(one_line.begin(), one_line.end(), '\n', ' ');
  write_file_atomically(sweep_error_file(dir, run),
                        [&](std::ostream& out) { out << one_line << '\n'; });
}

std::optional<std::string> recorded_run_error(const std::string& dir, const SweepRun& run) {
  std::ifstream in(sweep_error_file(dir, run), std::ios::binary);
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  return line;
}

namespace {

// Nested values become columns of their own, named by their dotted path as in `dlsim compare`
// (util_by_kind.gpu.alloc, an array's items by index): no JSON inside a CSV cell.
void flatten_json(const nlohmann::ordered_json& v, const std::string& name,
                  std::vector<std::pair<std::string, std::string>>& out) {
  auto child = [&](const std::string& k) { return name.empty() ? k : name + "." + k; };
  if (v.is_object()) {
    for (const auto& [k, item] : v.items())
      flatten_json(item, child(k), out);
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i)
      flatten_json(v[i], child(std::to_string(i)), out);
  } else if (v.is_string()) {
    out.emplace_back(name, v.get<std::string>());
  } else if (v.is_null()) {
    out.emplace_back(name, "");
  } else {
    out.emplace_back(name, v.dump());
  }
}

struct RunRow {
  std::string status;
  std::string error;
  std::vector<std::pair<std::string, std::string>> metrics; // summary.json order
};

RunRow read_run(const std::string& dir, const SweepRun& run) {
  RunRow row;
  std::string summary = (fs::path(sweep_run_dir(dir, run)) / "summary.json").string();
  if (path_exists(summary)) {
    nlohmann::ordered_json j = read_result_json(summary);
    row.status = "ok";
    flatten_json(j, "", row.metrics);
    return row;
  }
  if (auto error = recorded_run_error(dir, run)) {
    row.status = "failed";
    row.error = *error;
  } else {
    row.status = "missing";
  }
  return row;
}

} // namespace

CollectCounts collect_sweep(const std::string& dir, const SweepSpec& plan) {
  std::vector<RunRow> rows;
  std::vector<std::string> metric_names; // first-appearance order over the runs, in plan order
  CollectCounts counts;
  for (const auto& run : plan.runs) {
    rows.push_back(read_run(dir, run));
    for (const auto& [k, v] : rows.back().metrics) {
      if (std::find(metric_names.begin(), metric_names.end(), k) == metric_names.end())
        metric_names.push_back(k);
    }
    const std::string& s = rows.back().status;
    (s == "ok" ? counts.ok : s == "failed" ? counts.failed : counts.missing) += 1;
  }
  auto metric_of = [](const RunRow& row, const std::string& m) -> const std::string* {
    auto it = std::find_if(row.metrics.begin(), row.metrics.end(),
                           [&](const auto& kv) { return kv.first == m; });
    return it == row.metrics.end() ? nullptr : &it->second;
  };
  auto key_of = [](const SweepRun& run, const std::string& k) -> std::string {
    auto it = std::find_if(run.overrides.begin(), run.overrides.end(),
                           [&](const auto& kv) { return kv.first == k; });
    return it == run.overrides.end() ? "" : it->second;
  };
  // One name per column. A metric named like a swept key (seed) says what the key's column
  // says in every run: it is left out; should it ever differ, it stays as summary.<name>.
  std::vector<std::string> metric_columns;
  std::vector<std::string> shown_metrics;
  for (const auto& m : metric_names) {
    const bool reserved = m == "run" || m == "status" || m == "error";
    const bool swept = std::find(plan.keys.begin(), plan.keys.end(), m) != plan.keys.end();
    if (swept) {
      bool same = true;
      for (std::size_t i = 0; i < plan.runs.size(); ++i) {
        const std::string* v = metric_of(rows[i], m);
        if (v != nullptr && *v != key_of(plan.runs[i], m)) same = false;
      }
      if (same) continue;
    }
    shown_metrics.push_back(m);
    metric_columns.push_back(reserved || swept ? "summary." + m : m);
  }
  std::ostringstream csv;
  csv << "run";
  for (const auto& k : plan.keys)
    csv << ',' << csv_field(k);
  csv << ",status,error";
  for (const auto& m : metric_columns)
    csv << ',' << csv_field(m);
  csv << '\n';
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const SweepRun& run = plan.runs[i];
    const RunRow& row = rows[i];
    csv << csv_field(run.id);
    for (const auto& k : plan.keys)
      csv << ',' << csv_field(key_of(run, k));
    csv << ',' << row.status << ',' << csv_field(row.error);
    for (const auto& m : shown_metrics) {
      const std::string* v = metric_of(row, m);
      csv << ',' << (v == nullptr ? "" : csv_field(*v));
    }
    csv << '\n';
  }
  write_file_atomically((fs::path(dir) / "results.csv").string(),
                        [&](std::ostream& out) { out << csv.str(); });
  return counts;
}

} // namespace dlsim
