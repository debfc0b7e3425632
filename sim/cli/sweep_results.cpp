// results.csv from a sweep directory's runs/<id>/summary.json and error.txt files.
#include "sim/cli/sweep_results.h"
#include "sim/report/json_text.h"

#include "sim/cli/sweep_csv.h"
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

struct RunRow {
  std::string status;
  std::string error;
  std::vector<std::pair<std::string, std::string>> metrics; // summary.json order
};

RunRow read_run(const std::string& dir, const SweepRun& run) {
  RunRow row;
  std::string summary = (fs::path(sweep_run_dir(dir, run)) / "summary.json").string();
  std::ifstream in(summary, std::ios::binary);
  if (in) {
    nlohmann::ordered_json j;
    try {
      j = nlohmann::ordered_json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(fmt::format("{}: not valid JSON: {}", summary, e.what()));
    }
    row.status = "ok";
    for (const auto& [k, v] : j.items())
      row.metrics.emplace_back(k, v.is_string() ? v.get<std::string>() : json_text(v));
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
  std::ostringstream csv;
  csv << "run";
  for (const auto& k : plan.keys)
    csv << ',' << csv_field(k);
  csv << ",status,error";
  for (const auto& m : metric_names)
    csv << ',' << csv_field(m);
  csv << '\n';
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const SweepRun& run = plan.runs[i];
    const RunRow& row = rows[i];
    csv << csv_field(run.id);
    for (const auto& k : plan.keys) {
      auto it = std::find_if(run.overrides.begin(), run.overrides.end(),
                             [&](const auto& kv) { return kv.first == k; });
      csv << ',' << (it == run.overrides.end() ? "" : csv_field(it->second));
    }
    csv << ',' << row.status << ',' << csv_field(row.error);
    for (const auto& m : metric_names) {
      auto it = std::find_if(row.metrics.begin(), row.metrics.end(),
                             [&](const auto& kv) { return kv.first == m; });
      csv << ',' << (it == row.metrics.end() ? "" : csv_field(it->second));
    }
    csv << '\n';
  }
  write_file_atomically((fs::path(dir) / "results.csv").string(),
                        [&](std::ostream& out) { out << csv.str(); });
  return counts;
}

} // namespace dlsim
