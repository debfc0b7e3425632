// Regression comparison of run summaries and sweep results (`dlsim compare`, `run
// --check-against`).
#include "sim/cli/compare.h"

#include "sim/cli/sweep_csv.h"
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

namespace fs = std::filesystem;

namespace dlsim {

namespace {

std::optional<double> as_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

MetricValue value_of(const nlohmann::ordered_json& v) {
  if (v.is_string()) return {v.get<std::string>(), std::nullopt};
  std::string text = v.dump();
  return {text, v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt};
}

ResultSet read_summary(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read", file));
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", file, e.what()));
  }
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
  for (const auto& [k, v] : j.items())
    metrics.emplace_back(k, value_of(v));
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
    for (std::size_t c = error + 1; c < row.size(); ++c)
      metrics.emplace_back(t.header[c], MetricValue{row[c], as_number(row[c])});
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

std::string relative_text(const CompareRow& r) {
  if (!r.changed) return "0";
  if (!r.relative) return "changed";
  if (std::isinf(*r.relative)) return "from 0";
  return fmt::format("{:+.4g}%", *r.relative * 100);
}

} // namespace

ResultSet read_result_set(const std::string& path) {
  if (fs::is_directory(path)) {
    if (fs::exists(fs::path(path) / "results.csv"))
      return read_sweep_csv((fs::path(path) / "results.csv").string());
    if (fs::exists(fs::path(path) / "summary.json"))
      return read_summary((fs::path(path) / "summary.json").string());
    throw InputError(
        fmt::format("{}: a directory with neither results.csv nor summary.json", path));
  }
  if (!fs::exists(path)) throw InputError(fmt::format("{}: no such file", path));
  if (path.ends_with(".csv")) return read_sweep_csv(path);
  return read_summary(path);
}

void add_tolerance(CompareOptions& o, const std::string& spec) {
  auto eq = spec.find('=');
  std::string name = eq == std::string::npos ? "" : spec.substr(0, eq);
  std::string value = eq == std::string::npos ? spec : spec.substr(eq + 1);
  auto rel = as_number(value);
  if (!rel || *rel < 0 || (eq != std::string::npos && name.empty())) {
    throw boost::program_options::error(fmt::format(
        "--tolerance expects metric=REL or REL with REL >= 0 (0.01 = 1%), got '{}'", spec));
  }
  if (name.empty() || name == "*") {
    o.default_tolerance = *rel;
  } else {
    o.tolerance[name] = *rel;
  }
}

Comparison compare_result_sets(const ResultSet& base, const ResultSet& fresh,
                               const CompareOptions& o) {
  if (base.sweep != fresh.sweep) {
    throw InputError(fmt::format("cannot compare {} ({}) with {} ({})", base.file,
                                 base.sweep ? "sweep results" : "a summary", fresh.file,
                                 fresh.sweep ? "sweep results" : "a summary"));
  }
  // Every metric named in an option must exist somewhere, so that a typo is not a silent pass.
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
  static const MetricList kNone;
  for (const auto& id : ids) {
    auto bi = base.runs.find(id);
    auto ni = fresh.runs.find(id);
    const MetricList& b = bi == base.runs.end() ? kNone : bi->second;
    const MetricList& n = ni == fresh.runs.end() ? kNone : ni->second;
    std::vector<std::string> names;
    for (const auto& [k, v] : b)
      names.push_back(k);
    for (const auto& [k, v] : n) {
      if (!find_metric(b, k)) names.push_back(k);
    }
    if (bi == base.runs.end() || ni == fresh.runs.end()) {
      // A run on one side only: one row says so.
      CompareRow r;
      r.run = id;
      r.metric = "(run)";
      r.old_text = bi == base.runs.end() ? "(missing)" : "present";
      r.new_text = ni == fresh.runs.end() ? "(missing)" : "present";
      r.changed = r.beyond = true;
      c.rows.push_back(r);
      continue;
    }
    for (const auto& name : names) {
      if (!selected(name)) continue;
      const MetricValue* ov = find_metric(b, name);
      const MetricValue* nv = find_metric(n, name);
      CompareRow r;
      r.run = id;
      r.metric = name;
      r.old_text = ov ? ov->text : "(missing)";
      r.new_text = nv ? nv->text : "(missing)";
      auto t = o.tolerance.find(name);
      r.tolerance = t == o.tolerance.end() ? o.default_tolerance : t->second;
      if (ov && nv && ov->number && nv->number) {
        double old_v = *ov->number;
        double new_v = *nv->number;
        r.changed = old_v != new_v;
        if (old_v == 0) {
          r.relative = new_v == 0 ? 0.0 : std::numeric_limits<double>::infinity();
        } else {
          r.relative = (new_v - old_v) / std::fabs(old_v);
        }
        r.beyond = r.changed && !(std::fabs(*r.relative) <= r.tolerance);
      } else {
        r.changed = !ov || !nv || ov->text != nv->text;
        r.beyond = r.changed;
      }
      c.rows.push_back(r);
    }
  }
  for (const auto& r : c.rows) {
    c.changed += r.changed;
    c.beyond += r.beyond;
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
      mark = r.relative ? fmt::format("  << beyond tolerance {}", r.tolerance) : "  << changed";
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
  } else {
    fmt::print(out, "compare: REGRESSION: {} of {} values beyond tolerance ({} vs {})\n", c.beyond,
               c.rows.size(), baseline_name, new_name);
  }
}

} // namespace dlsim
