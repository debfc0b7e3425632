// Comparing results for regressions: two summary.json files, or two sweep results.csv files
// matched by run id. Each metric's old and new value, the relative change, and whether it is
// beyond its tolerance (default 0: a deterministic simulator should not change at all).
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace dlsim {

// One value as the file wrote it, and as a number when it is one.
struct MetricValue {
  std::string text;
  std::optional<double> number;
};

using MetricList = std::vector<std::pair<std::string, MetricValue>>; // in the file's order

// The results in one file. A summary.json is one run whose id is empty.
struct ResultSet {
  std::string file;
  bool sweep = false;
  std::vector<std::string> run_order;
  std::map<std::string, MetricList> runs;
};

// Reads a summary.json, a results.csv, or a directory holding either (results.csv first).
ResultSet read_result_set(const std::string& path);

struct CompareOptions {
  double default_tolerance = 0;            // relative, |new - old| / |old|
  std::map<std::string, double> tolerance; // per metric
  std::vector<std::string> metrics;        // empty: all
  bool changed_only = false;               // print only the values that changed
};

// Parses "metric=REL" (or a bare "REL", the default for every metric) into `options`.
void add_tolerance(CompareOptions& options, const std::string& spec);

struct CompareRow {
  std::string run;
  std::string metric;
  std::string old_text, new_text; // "(missing)" when absent
  std::optional<double> relative; // (new - old) / |old| for numbers
  double tolerance = 0;
  bool changed = false;
  bool beyond = false;
};

struct Comparison {
  bool sweep = false;
  std::vector<CompareRow> rows;
  std::size_t changed = 0;
  std::size_t beyond = 0;
};

Comparison compare_result_sets(const ResultSet& baseline, const ResultSet& fresh,
                               const CompareOptions& options);

// The table, then one line with the verdict.
void print_comparison(std::ostream& out, const Comparison& c, const std::string& baseline_name,
                      const std::string& new_name, bool changed_only);

} // namespace dlsim
