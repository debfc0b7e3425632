// Regression comparison of run summaries and sweep results (`dlsim compare`, `run
// --check-against`).
#include "sim/cli/compare.h"
#include "sim/report/json_text.h"

#include "sim/cli/result_json.h"
#include "sim/cli/sweep_csv.h"
#include "sim/config/path_probe.h"
#include "sim/engine/error.h"

#include <boost/program_options/errors.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

namespace fs = std::filesystem;

namespace dlsim {

namespace {

MetricValue value_of(const nlohmann::ordered_json& v) {
  if (v.is_string()) return {v.get<std::string>(), std::nullopt};
  std::string text = json_text(v);
  return {text, v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt};
}

// Nested objects (util_by_kind, ...) become dotted names, util_by_kind.gpu.alloc, so that each
// number is compared with its tolerance.
void add_flattened(MetricList& metrics, const std::string& prefix,
                   const nlohmann::ordered_json& obj) {
  for (const auto& [k, v] : obj.items()) {
    std::string name = prefix.empty() ? k : fmt::format("{}.{}", prefix, k);
    if (v.is_object())
      add_flattened(metrics, name, v);
    else
      metrics.emplace_back(name, value_of(v));
  }
}

ResultSet read_summary(const std::string& file) {
  nlohmann::ordered_json j = read_result_json(file);
  if (!j.is_object())
    throw InputError(fmt::format("{}: expected a JSON object (a summary.json)", file));
  // `{}` or another tool's JSON would compare as "every metric missing": not a summary.
  for (const char* key : {"jobs", "makespan_s"}) {
    if (!j.contains(key))
      throw InputError(fmt::format("{}: no '{}' key: not a dlsim summary.json", file, key));
  }
  ResultSet r;
  r.file = file;
  MetricList metrics;
  add_flattened(metrics, "", j);
  r.run_order.emplace_back();
  r.runs[""] = std::move(metrics);
  return r;
}

ResultSet read_sweep_csv(const std::string& file) {
  CsvTable t = read_csv_table(file);
  auto column = [&](const std::string& name) {
    auto it = std::find(t.header.begin(), t.header.end(), name);
    if (it == t.header.end()) {
      throw InputError(fmt::format("{}:1: no '{}' column: not a sweep results.csv", file, name));
    }
    return static_cast<std::size_t>(it - t.header.begin());
  };
  std::size_t run = column("run");
  std::size_t status = column("status");
  std::size_t error = column("error");
  ResultSet r;
  r.file = file;
  r.sweep = true;
  std::size_t line = 1;
  for (const auto& row : t.rows) {
    ++line;
    MetricList metrics;
    metrics.emplace_back("status", MetricValue{row[status], std::nullopt});
    for (std::size_t c = error + 1; c < row.size(); ++c) {
      // A summary value named like a swept key (seed) repeats that key's column: results.csv
      // files written before it was left out have it, today's do not; it is not compared.
      if (std::find(t.header.begin(), t.header.begin() + static_cast<std::ptrdiff_t>(status),
                    t.header[c]) != t.header.begin() + static_cast<std::ptrdiff_t>(status))
        continue;
      // A results.csv written before nested values had columns of their own holds them as
      // JSON objects: compared value by value, as numbers, like the columns of today's.
      if (row[c].starts_with('{')) {
        nlohmann::ordered_json nested;
        try {
          nested = parse_result_json(row[c], file);
        } catch (const InputError&) {
          // Not JSON (or too deep to be dlsim's): compared as text.
        }
        if (nested.is_object()) {
          add_flattened(metrics, t.header[c], nested);
          continue;
        }
      }
      metrics.emplace_back(t.header[c], MetricValue{row[c], as_number(row[c])});
    }
    if (r.runs.count(row[run]))
      throw InputError(fmt::format("{}:{}: run '{}' appears twice", file, line, row[run]));
    r.run_order.push_back(row[run]);
    r.runs[row[run]] = std::move(metrics);
  }
  return r;
}

const MetricValue* find_metric(const MetricList& list, const std::string& name) {
  for (const auto& [k, v] : list) {
    if (k == name) return &v;
  }
  return nullptr;
}

// Reads "metric=VALUE" or a bare "VALUE" (metric ""); a usage error names the option.
std::pair<std::string, std::string> split_spec(const std::string& spec, const char* option,
                                               const char* expects) {
  auto eq = spec.find('=');
  if (eq != std::string::npos && eq == 0)
    throw boost::program_options::error(
        fmt::format("{} expects {}, got '{}'", option, expects, spec));
  if (eq == std::string::npos) return {"", spec};
  return {spec.substr(0, eq), spec.substr(eq + 1)};
}

double non_negative(const std::string& value, const std::string& spec, const char* option,
                    const char* expects) {
  auto v = as_number(value);
  if (!v || !(*v >= 0) || std::isinf(*v))
    throw boost::program_options::error(
        fmt::format("{} expects {}, got '{}'", option, expects, spec));
  return *v;
}

std::string relative_text(const CompareRow& r) {
  if (!r.changed) return "0";
  if (!r.relative) return "changed";
  if (std::isinf(*r.relative)) return "from 0";
  return fmt::format("{:+.4g}%", *r.relative * 100);
}

} // namespace

std::optional<double> as_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

ResultSet read_result_set(const std::string& path) {
  if (is_directory_path(path)) {
    if (path_exists(fs::path(path) / "results.csv"))
      return read_sweep_csv((fs::path(path) / "results.csv").string());
    if (path_exists(fs::path(path) / "summary.json"))
      return read_summary((fs::path(path) / "summary.json").string());
    throw InputError(
        fmt::format("{}: a directory with neither results.csv nor summary.json", path));
  }
  if (!path_exists(path)) throw InputError(fmt::format("{}: no such file", path));
  if (path.ends_with(".csv")) return read_sweep_csv(path);
  return read_summary(path);
}

bool is_lower_bound(const MetricList& run, const std::string& metric) {
  auto flag = [&](const std::string& name) {
    const MetricValue* v = find_metric(run, name);
    return v != nullptr && v->text == "true";
  };
  std::string_view m = metric;
  std::string prefix;
  if (m.starts_with("window.")) {
    prefix = "window.";
    m.remove_prefix(prefix.size());
  } else if (m == "makespan_s") {
    return flag("makespan_censored");
  }
  if (m.starts_with("jct_") && m.ends_with("_s")) return flag(prefix + "jct_censored");
  if (m.starts_with("queue_") && m.ends_with("_s")) return flag(prefix + "queue_censored");
  return false;
}

RunOutcome run_outcome(const MetricList& run) {
  if (find_metric(run, "deadlocked_at_s")) return RunOutcome::kDeadlocked;
  const MetricValue* unfinished = find_metric(run, "unfinished");
  if (unfinished && unfinished->number && *unfinished->number > 0) return RunOutcome::kCensored;
  return RunOutcome::kComplete;
}

Better default_direction(const std::string& name) {
  // Utilization and finished jobs: more is better. Times (jct_*, queue_*, makespan_s: every
  // `_s`), slowdowns, finish-time fairness rho and counts of disruption or loss: less is better.
  // The rest (jobs, events, seed, trace counts, device counts) is an input or a workload size,
  // neither better nor worse. A nested key (util_by_kind.gpu.alloc) goes by its own last part,
  // under a utilization section for alloc and effective.
  std::string_view m = name;
  std::string_view section;
  if (auto dot = m.rfind('.'); dot != std::string_view::npos) {
    section = m.substr(0, dot);
    m = m.substr(dot + 1);
  }
  if (m == "deadlocked_at_s") return Better::kEither; // its presence is what counts
  if (section.starts_with("util_by_"))
    return m == "alloc" || m == "effective" ? Better::kHigher : Better::kEither;
  if (m.find("util") != std::string_view::npos || m == "finished" || m.starts_with("jain"))
    return Better::kHigher;
  if (m.ends_with("_s") || m.find("slowdown") != std::string_view::npos ||
      m.starts_with("ftf_rho") || m == "preemptions" || m == "migrations" || m == "unfinished" ||
      m == "failed" || m == "cancelled")
    return Better::kLower;
  return Better::kEither;
}

void add_tolerance(CompareOptions& o, const std::string& spec) {
  const char* expects = "metric=REL or REL with REL >= 0 (0.01 = 1%)";
  auto [name, value] = split_spec(spec, "--tolerance", expects);
  double rel = non_negative(value, spec, "--tolerance", expects);
  if (name.empty() || name == "*") {
    o.default_tolerance = rel;
  } else {
    o.tolerance[name] = rel;
  }
}

void add_abs_tolerance(CompareOptions& o, const std::string& spec) {
  const char* expects = "metric=ABS or ABS with ABS >= 0, in the metric's unit";
  auto [name, value] = split_spec(spec, "--abs-tolerance", expects);
  double abs = non_negative(value, spec, "--abs-tolerance", expects);
  if (name.empty() || name == "*") {
    o.default_abs_tolerance = abs;
  } else {
    o.abs_tolerance[name] = abs;
  }
}

void add_direction(CompareOptions& o, const std::string& spec) {
  const char* expects = "metric=lower, metric=higher or metric=either";
  auto [name, value] = split_spec(spec, "--direction", expects);
  if (name.empty())
    throw boost::program_options::error(
        fmt::format("--direction expects {}, got '{}'", expects, spec));
  if (value == "lower") {
    o.direction[name] = Better::kLower;
  } else if (value == "higher") {
    o.direction[name] = Better::kHigher;
  } else if (value == "either") {
    o.direction[name] = Better::kEither;
  } else {
    throw boost::program_options::error(
        fmt::format("--direction expects {}, got '{}'", expects, spec));
  }
}

namespace {

// Every metric named in an option must exist somewhere, so that a typo is not a silent pass.
void check_option_metrics(const ResultSet& base, const ResultSet& fresh, const CompareOptions& o) {
  std::set<std::string> known;
  for (const ResultSet* s : {&base, &fresh}) {
    for (const auto& [id, list] : s->runs) {
      for (const auto& [k, v] : list)
        known.insert(k);
    }
  }
  auto check_known = [&](const std::string& name, const char* option) {
    if (!known.count(name)) {
      std::vector<std::string> names(known.begin(), known.end());
      throw boost::program_options::error(fmt::format("{}: unknown metric '{}'; the files have: {}",
                                                      option, name, fmt::join(names, ", ")));
    }
  };
  for (const auto& m : o.metrics)
    check_known(m, "--metrics");
  for (const auto& [m, t] : o.tolerance)
    check_known(m, "--tolerance");
  for (const auto& [m, t] : o.abs_tolerance)
    check_known(m, "--abs-tolerance");
  for (const auto& [m, d] : o.direction)
    check_known(m, "--direction");
}

// The order of --metrics when given, else the baseline's, then what only the new run has.
std::vector<std::string> metric_names(const CompareOptions& o, const MetricList& b,
                                      const MetricList& n) {
  std::vector<std::string> names = o.metrics;
  if (names.empty()) {
    for (const auto& [k, v] : b)
      names.push_back(k);
    for (const auto& [k, v] : n) {
      if (!find_metric(b, k)) names.push_back(k);
    }
  }
  return names;
}

// Two numbers: changed beyond both tolerances, and which way is better.
void judge_numbers(CompareRow& r, double old_v, double new_v, Better better, bool own_direction,
                   const MetricList& b, const MetricList& n) {
  const std::string& name = r.metric;
  r.changed = old_v != new_v;
  if (old_v == 0) {
    r.relative = new_v == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  } else {
    r.relative = (new_v - old_v) / std::fabs(old_v);
  }
  // Within tolerance when either bound holds: 1% or 5 s, say, for a JCT near zero.
  r.beyond = r.changed && !(std::fabs(*r.relative) <= r.tolerance) &&
             !(std::fabs(new_v - old_v) <= r.abs_tolerance);
  // More unfinished jobs is a regression at any tolerance: the new run's times then
  // count jobs that did not finish at their time so far.
  if (name == "unfinished" && new_v > old_v && !own_direction) r.beyond = true;
  if (r.beyond) {
    const bool up = new_v > old_v;
    r.verdict = better == Better::kEither           ? Verdict::kChanged
                : (better == Better::kHigher) == up ? Verdict::kImproved
                                                    : Verdict::kRegression;
    // A lower bound that fell is not an improvement: the jobs behind it did not finish.
    if (r.verdict == Verdict::kImproved && better == Better::kLower && is_lower_bound(n, name))
      r.verdict = Verdict::kChanged;
    // Nor is a rise from a lower bound a regression: the baseline's jobs had not finished.
    if (r.verdict == Verdict::kRegression && better == Better::kLower && is_lower_bound(b, name))
      r.verdict = Verdict::kChanged;
  }
}

// Two texts, or a metric on one side only.
void judge_texts(CompareRow& r, const MetricValue* ov, const MetricValue* nv) {
  const std::string& name = r.metric;
  r.changed = !ov || !nv || ov->text != nv->text;
  // A metric the baseline does not have is new in this version, not a regression; but a
  // deadlock or a censored statistic that appears is one, and its end an improvement.
  const bool trouble = name == "deadlocked_at_s" || name.ends_with("_censored");
  auto bad = [&](const MetricValue* v) {
    return v != nullptr && (name == "deadlocked_at_s" || v->text == "true");
  };
  if (trouble) {
    r.beyond = bad(ov) != bad(nv);
    if (r.beyond) r.verdict = bad(nv) ? Verdict::kRegression : Verdict::kImproved;
  } else {
    r.beyond = r.changed && ov != nullptr;
    if (r.beyond) r.verdict = Verdict::kChanged;
  }
}

// One metric of one run, old against new.
CompareRow compare_metric(const std::string& id, const std::string& name, const MetricList& b,
                          const MetricList& n, const CompareOptions& o) {
  const MetricValue* ov = find_metric(b, name);
  const MetricValue* nv = find_metric(n, name);
  CompareRow r;
  r.run = id;
  r.metric = name;
  r.old_text = ov ? ov->text : "(missing)";
  r.new_text = nv ? nv->text : "(missing)";
  auto t = o.tolerance.find(name);
  r.tolerance = t == o.tolerance.end() ? o.default_tolerance : t->second;
  auto a = o.abs_tolerance.find(name);
  r.abs_tolerance = a == o.abs_tolerance.end() ? o.default_abs_tolerance : a->second;
  auto d = o.direction.find(name);
  const Better better = d == o.direction.end() ? default_direction(name) : d->second;
  if (ov && nv && ov->number && nv->number) {
    judge_numbers(r, *ov->number, *nv->number, better, d != o.direction.end(), b, n);
  } else {
    judge_texts(r, ov, nv);
  }
  if (r.changed && !r.beyond) r.verdict = Verdict::kWithin;
  return r;
}

} // namespace

Comparison compare_result_sets(const ResultSet& base, const ResultSet& fresh,
                               const CompareOptions& o) {
  if (base.sweep != fresh.sweep) {
    throw InputError(fmt::format("cannot compare {} ({}) with {} ({})", base.file,
                                 base.sweep ? "sweep results" : "a summary", fresh.file,
                                 fresh.sweep ? "sweep results" : "a summary"));
  }
  check_option_metrics(base, fresh, o);
  auto selected = [&](const std::string& m) {
    return o.metrics.empty() || std::find(o.metrics.begin(), o.metrics.end(), m) != o.metrics.end();
  };

  // Runs in the baseline's order, then runs only the new file has.
  std::vector<std::string> ids = base.run_order;
  for (const auto& id : fresh.run_order) {
    if (!base.runs.count(id)) ids.push_back(id);
  }
  Comparison c;
  c.sweep = base.sweep;
  static const MetricList no_metrics;
  for (const auto& id : ids) {
    auto bi = base.runs.find(id);
    auto ni = fresh.runs.find(id);
    const MetricList& b = bi == base.runs.end() ? no_metrics : bi->second;
    const MetricList& n = ni == fresh.runs.end() ? no_metrics : ni->second;
    std::vector<std::string> names = metric_names(o, b, n);
    if (bi == base.runs.end() || ni == fresh.runs.end()) {
      // A run on one side only: one row says so.
      CompareRow r;
      r.run = id;
      r.metric = "(run)";
      r.old_text = bi == base.runs.end() ? "(missing)" : "present";
      r.new_text = ni == fresh.runs.end() ? "(missing)" : "present";
      r.changed = r.beyond = true;
      r.verdict = Verdict::kChanged;
      c.rows.push_back(r);
      continue;
    }
    for (const auto& name : names) {
      if (!selected(name)) continue;
      c.rows.push_back(compare_metric(id, name, b, n, o));
    }
  }
  c.worse_only = o.worse_only;
  for (auto& r : c.rows) {
    r.fails = r.beyond && !(o.worse_only && r.verdict == Verdict::kImproved);
    c.changed += r.changed;
    c.beyond += r.beyond;
    c.improved += r.verdict == Verdict::kImproved;
    c.regressions += r.verdict == Verdict::kRegression;
    c.fails += r.fails;
  }
  return c;
}

void print_comparison(std::ostream& out, const Comparison& c, const std::string& baseline_name,
                      const std::string& new_name, bool changed_only) {
  std::size_t run_w = 3, metric_w = 6, old_w = 8, new_w = 3;
  for (const auto& r : c.rows) {
    run_w = std::max(run_w, r.run.size());
    metric_w = std::max(metric_w, r.metric.size());
    old_w = std::max(old_w, r.old_text.size());
    new_w = std::max(new_w, r.new_text.size());
  }
  std::string run_col = c.sweep ? fmt::format("{:<{}}  ", "run", run_w) : "";
  fmt::print(out, "{}{:<{}}  {:>{}}  {:>{}}  {:>10}\n", run_col, "metric", metric_w, "baseline",
             old_w, "new", new_w, "change");
  std::size_t shown = 0;
  for (const auto& r : c.rows) {
    if (changed_only && !r.changed) continue;
    ++shown;
    std::string mark;
    if (r.beyond) {
      const char* label = r.verdict == Verdict::kImproved     ? "IMPROVED"
                          : r.verdict == Verdict::kRegression ? "REGRESSION"
                                                              : "CHANGED";
      mark = r.relative
                 ? fmt::format(
                       "  << {}: beyond tolerance {}{}", label, r.tolerance,
                       r.abs_tolerance > 0 ? fmt::format(" and {} absolute", r.abs_tolerance) : "")
                 : fmt::format("  << {}", label);
    } else if (r.changed && r.old_text == "(missing)") {
      mark = "  (new metric)";
    }
    std::string run = c.sweep ? fmt::format("{:<{}}  ", r.run, run_w) : "";
    fmt::print(out, "{}{:<{}}  {:>{}}  {:>{}}  {:>10}{}\n", run, r.metric, metric_w, r.old_text,
               old_w, r.new_text, new_w, relative_text(r), mark);
  }
  if (changed_only && shown == 0) fmt::print(out, "(no value changed)\n");
  if (c.beyond == 0) {
    fmt::print(out,
               "compare: OK: {} values compared, {} changed, none beyond tolerance ({} vs {})\n",
               c.rows.size(), c.changed, baseline_name, new_name);
    return;
  }
  // The worst that happened names the verdict: a regression, else a change with no better
  // direction, else only improvements (a failure too unless --worse-only: the baseline is stale).
  const std::size_t other = c.beyond - c.improved - c.regressions;
  const char* word = c.regressions > 0 ? "REGRESSION" : other > 0 ? "CHANGED" : "IMPROVED";
  fmt::print(out,
             "compare: {}: {} of {} values beyond tolerance: {} worse, {} better, {} changed{} "
             "({} vs {})\n",
             word, c.beyond, c.rows.size(), c.regressions, c.improved, other,
             c.fails == 0 ? " (--worse-only: not a failure)" : "", baseline_name, new_name);
}

} // namespace dlsim
