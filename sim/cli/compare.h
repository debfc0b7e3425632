// Comparing results for regressions: two summary.json files, or two sweep results.csv files
// matched by run id. Each metric's old and new value, the relative change, whether it is beyond
// its tolerance (default 0: a deterministic simulator should not change at all), and whether that
// change is better or worse by the metric's direction (docs/ci.md#dlsim-compare).
#pragma once

#include <cstdint>
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

// A metric's text as a number: the whole of it must parse (std::from_chars); nullopt otherwise.
std::optional<double> as_number(const std::string& s);

// Whether a run's metric is a lower bound: a JCT, queueing or makespan figure of a run with
// unfinished jobs, which counts them at their time so far (summary.json's jct_censored,
// queue_censored, makespan_censored, and window.jct_censored, window.queue_censored).
bool is_lower_bound(const MetricList& run, const std::string& metric);

// How a run ended, from its summary.json: every job finished or cancelled, jobs left
// unfinished (--until), or a deadlock (deadlocked_at_s). Ordered from best to worst.
enum class RunOutcome : std::uint8_t { kComplete, kCensored, kDeadlocked };
RunOutcome run_outcome(const MetricList& run);

// Which way a metric is better: lower for times and counts of trouble, higher for utilization
// and finished jobs; either for the rest (a change in `jobs` is neither good nor bad).
enum class Better : std::uint8_t { kLower, kHigher, kEither };

// The direction of a metric by its name (the table in docs/ci.md), unless overridden.
Better default_direction(const std::string& metric);

struct CompareOptions {
  double default_tolerance = 0;                // relative, |new - old| / |old|
  std::map<std::string, double> tolerance;     // per metric
  double default_abs_tolerance = 0;            // absolute, |new - old|
  std::map<std::string, double> abs_tolerance; // per metric
  std::map<std::string, Better> direction;     // overrides of default_direction
  std::vector<std::string> metrics;            // empty: all; else these, in this order
  bool changed_only = false;                   // print only the values that changed
  bool worse_only = false;                     // a change for the better is not a failure
};

// Parses "metric=REL" (or a bare "REL", the default for every metric) into `options`.
void add_tolerance(CompareOptions& options, const std::string& spec);
// The same for absolute tolerances ("metric=ABS" or "ABS"; --abs-tolerance).
void add_abs_tolerance(CompareOptions& options, const std::string& spec);
// Parses "metric=lower|higher|either" (--direction).
void add_direction(CompareOptions& options, const std::string& spec);

// What became of one value.
enum class Verdict : std::uint8_t {
  kSame,       // unchanged
  kWithin,     // changed within its tolerance
  kImproved,   // beyond tolerance, in the metric's better direction
  kRegression, // beyond tolerance, in its worse direction
  kChanged,    // beyond tolerance with no better direction (a text value, `jobs`, a missing run)
};

struct CompareRow {
  std::string run;
  std::string metric;
  std::string old_text, new_text; // "(missing)" when absent
  std::optional<double> relative; // (new - old) / |old| for numbers
  double tolerance = 0;
  double abs_tolerance = 0;
  bool changed = false;
  bool beyond = false; // beyond both tolerances
  Verdict verdict = Verdict::kSame;
  bool fails = false; // beyond, and not an improvement under worse_only
};

struct Comparison {
  bool sweep = false;
  bool worse_only = false;
  std::vector<CompareRow> rows;
  std::size_t changed = 0;
  std::size_t beyond = 0;
  std::size_t improved = 0;
  std::size_t regressions = 0;
  std::size_t fails = 0; // the exit code is 1 when this is not 0
};

Comparison compare_result_sets(const ResultSet& baseline, const ResultSet& fresh,
                               const CompareOptions& options);

// The table, then one line with the verdict.
void print_comparison(std::ostream& out, const Comparison& c, const std::string& baseline_name,
                      const std::string& new_name, bool changed_only);

} // namespace dlsim
