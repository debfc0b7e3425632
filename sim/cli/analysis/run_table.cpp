// `dlsim table`: summary.json and run.yaml of several runs side by side.
#include "sim/cli/analysis/run_table.h"

#include "sim/cli/compare.h"
#include "sim/cli/sweep_csv.h"
#include "sim/cli/yaml_flatten.h"
#include "sim/config/path_probe.h"
#include "sim/config/yaml_reader.h"
#include "sim/engine/error.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace dlsim {

namespace {

std::string run_label(const std::string& dir) {
  fs::path p = fs::path(dir).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  return p.filename().string();
}

// The value rounded for reading: seconds to 0.1, other non-integers to 4 decimals.
std::string readable(const std::string& column, const std::string& text) {
  auto v = as_number(text);
  if (!v || std::floor(*v) == *v) return text;
  bool seconds = column.size() > 2 && column.compare(column.size() - 2, 2, "_s") == 0;
  return seconds ? fmt::format("{:.1f}", *v) : fmt::format("{:.4f}", *v);
}

} // namespace

std::vector<std::string> default_table_metrics() {
  return {"jobs",         "finished",       "makespan_s",         "jct_mean_s",    "jct_p95_s",
          "queue_mean_s", "gpu_util_alloc", "gpu_util_effective", "gpu_util_busy", "preemptions"};
}

namespace {

struct Run {
  std::string label;
  ResultSet summary;
  std::vector<std::pair<std::string, std::string>> config;
};

using Configs = std::vector<std::map<std::string, std::string>>;

// Each directory's summary.json and flattened run.yaml.
std::vector<Run> read_table_runs(const std::vector<std::string>& dirs) {
  std::vector<Run> runs;
  runs.reserve(dirs.size());
  for (const auto& dir : dirs) {
    if (!is_directory_path(dir))
      throw InputError(
          fmt::format("{}: not a directory (expected a dlsim run's result directory)", dir));
    Run r;
    r.label = run_label(dir);
    r.summary = read_result_set((fs::path(dir) / "summary.json").string());
    std::string run_yaml = (fs::path(dir) / "run.yaml").string();
    if (!path_exists(run_yaml)) throw InputError(fmt::format("{}: cannot read", run_yaml));
    // The checked reader: a run.yaml of nested aliases (8 levels of 10) flattened for hours.
    flatten_yaml(load_yaml_file(run_yaml), "", r.config);
    runs.push_back(std::move(r));
  }
  return runs;
}

// The run.yaml keys whose values differ among the runs, in the first run's order and then the
// others'. policy and seed have their own columns; the version is not a parameter.
std::vector<std::string> differing_keys(const std::vector<Run>& runs, const Configs& configs) {
  std::vector<std::string> keys;
  std::set<std::string> seen{"policy.name", "seed", "dlsim_version"};
  // A policy's parameters are compared among the runs that have them: runs of different
  // policies do not each add their own parameters as columns empty in every other row.
  for (const auto& r : runs) {
    for (const auto& [key, value] : r.config) {
      if (!seen.insert(key).second) continue;
      const bool policy_param = key.starts_with("policy.params.");
      for (const auto& c : configs) {
        auto it = c.find(key);
        if (it == c.end() ? !policy_param : it->second != value) {
          keys.push_back(key);
          break;
        }
      }
    }
  }
  return keys;
}

void check_metrics(const std::vector<Run>& runs, const std::vector<std::string>& metrics) {
  for (const auto& m : metrics) {
    bool any = std::any_of(runs.begin(), runs.end(), [&](const Run& r) {
      const auto& list = r.summary.runs.at("");
      return std::any_of(list.begin(), list.end(), [&](const auto& kv) { return kv.first == m; });
    });
    if (!any)
      throw InputError(fmt::format("--metrics: no run's summary.json has '{}' (keys are as in "
                                   "summary.json, nested ones dotted: util_by_kind.gpu.alloc)",
                                   m));
  }
}

// One row per run: label, policy, seed, outcome (when any run is not complete), the differing
// keys, the metrics.
void add_rows(RunTable& t, const std::vector<Run>& runs, const Configs& configs,
              const std::vector<std::string>& keys, const std::vector<std::string>& metrics,
              bool outcomes) {
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& list = runs[i].summary.runs.at("");
    auto metric = [&](const std::string& name) -> std::string {
      for (const auto& [k, v] : list)
        if (k == name) return v.text;
      return "";
    };
    std::vector<std::string> row{runs[i].label, metric("policy"), metric("seed")};
    if (outcomes) {
      switch (run_outcome(list)) {
      case RunOutcome::kComplete:
        row.emplace_back("complete");
        break;
      case RunOutcome::kCensored:
        row.push_back(metric("unfinished") + " unfinished");
        break;
      case RunOutcome::kDeadlocked:
        row.push_back(fmt::format("deadlocked at {} s", metric("deadlocked_at_s")));
        break;
      }
    }
    std::vector<bool> bounds(row.size() + keys.size(), false);
    for (const auto& k : keys) {
      auto it = configs[i].find(k);
      row.push_back(it == configs[i].end() ? "" : it->second);
    }
    for (const auto& m : metrics) {
      row.push_back(metric(m));
      bounds.push_back(is_lower_bound(list, m));
    }
    t.rows.push_back(std::move(row));
    t.lower_bound.push_back(std::move(bounds));
  }
}

// Any column the default table has or could have (every run.yaml key, every metric), in the
// order given.
void select_columns(RunTable& t, const std::vector<Run>& runs, const Configs& configs,
                    const std::vector<std::string>& columns) {
  std::vector<std::size_t> pick;
  for (const auto& name : columns) {
    auto it = std::find(t.header.begin(), t.header.end(), name);
    if (it != t.header.end()) {
      pick.push_back(static_cast<std::size_t>(it - t.header.begin()));
      continue;
    }
    const bool in_config = std::any_of(configs.begin(), configs.end(),
                                       [&](const auto& c) { return c.count(name) > 0; });
    const bool in_summary = std::any_of(runs.begin(), runs.end(), [&](const Run& r) {
      const auto& list = r.summary.runs.at("");
      return std::any_of(list.begin(), list.end(),
                         [&](const auto& kv) { return kv.first == name; });
    });
    if (!in_config && !in_summary)
      throw InputError(fmt::format("--columns: no run has '{}' (columns are run, policy, "
                                   "seed, run.yaml keys and summary.json keys, nested ones "
                                   "dotted: policy.params.interval_s, util_by_kind.gpu.alloc)",
                                   name));
    t.header.push_back(name);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      std::string value;
      if (auto c = configs[i].find(name); c != configs[i].end()) {
        value = c->second;
      } else {
        for (const auto& [k, v] : runs[i].summary.runs.at(""))
          if (k == name) value = v.text;
      }
      t.rows[i].push_back(value);
    }
    pick.push_back(t.header.size() - 1);
  }
  auto select = [&](const std::vector<std::string>& all) {
    std::vector<std::string> out;
    out.reserve(pick.size());
    for (std::size_t c : pick)
      out.push_back(all[c]);
    return out;
  };
  t.header = select(t.header);
  for (auto& row : t.rows)
    row = select(row);
}

// A column is numeric when every value it has is a number.
void mark_numeric(RunTable& t) {
  t.numeric.assign(t.header.size(), true);
  for (std::size_t c = 0; c < t.header.size(); ++c) {
    bool any = false;
    for (const auto& row : t.rows) {
      if (row[c].empty()) continue;
      any = true;
      if (!as_number(row[c])) t.numeric[c] = false;
    }
    if (!any) t.numeric[c] = false;
  }
}

} // namespace

RunTable build_run_table(const std::vector<std::string>& dirs,
                         const std::vector<std::string>& metrics,
                         const std::vector<std::string>& columns) {
  std::vector<Run> runs = read_table_runs(dirs);
  // Complete runs first: censored times are lower bounds, not figures to rank by.
  std::stable_sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) {
    return run_outcome(a.summary.runs.at("")) < run_outcome(b.summary.runs.at(""));
  });
  const bool outcomes = std::any_of(runs.begin(), runs.end(), [](const Run& r) {
    return run_outcome(r.summary.runs.at("")) != RunOutcome::kComplete;
  });

  Configs configs;
  configs.reserve(runs.size());
  for (const auto& r : runs)
    configs.emplace_back(r.config.begin(), r.config.end());
  const std::vector<std::string> keys = differing_keys(runs, configs);
  RunTable t;
  t.header = {"run", "policy", "seed"};
  if (outcomes) t.header.emplace_back("outcome");
  t.header.insert(t.header.end(), keys.begin(), keys.end());
  t.header.insert(t.header.end(), metrics.begin(), metrics.end());
  check_metrics(runs, metrics);
  add_rows(t, runs, configs, keys, metrics, outcomes);
  if (!columns.empty()) select_columns(t, runs, configs, columns);
  mark_numeric(t);
  return t;
}

namespace {

std::string csv_table(const RunTable& t) {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c)
      out += (c ? "," : "") + csv_field(cells[c]);
    out += '\n';
  };
  line(t.header);
  for (const auto& row : t.rows)
    line(row);
  return out;
}

// The rows as shown: values rounded for reading, lower bounds marked '>'.
std::vector<std::vector<std::string>> shown_cells(const RunTable& t) {
  std::vector<std::vector<std::string>> cells;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const auto& row = t.rows[r];
    std::vector<std::string> shown;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool bound = r < t.lower_bound.size() && t.lower_bound[r][c];
      shown.push_back((bound ? ">" : "") + readable(t.header[c], row[c]));
    }
    cells.push_back(std::move(shown));
  }
  return cells;
}

std::string latex_table(const RunTable& t, const std::vector<std::vector<std::string>>& cells) {
  std::string out;
  // A booktabs tabular for a paper: text left, numbers right, LaTeX's special characters
  // escaped (an underscore in jct_mean_s would start a subscript).
  auto escape = [](const std::string& s) {
    std::string e;
    for (char ch : s) {
      switch (ch) {
      case '&':
      case '%':
      case '$':
      case '#':
      case '_':
      case '{':
      case '}':
        e += '\\';
        e += ch;
        break;
      case '~':
        e += "\\textasciitilde{}";
        break;
      case '^':
        e += "\\textasciicircum{}";
        break;
      case '\\':
        e += "\\textbackslash{}";
        break;
      default:
        e += ch;
      }
    }
    return e;
  };
  out += "\\begin{tabular}{";
  for (std::size_t c = 0; c < t.header.size(); ++c)
    out += t.numeric[c] ? 'r' : 'l';
  out += "}\n\\toprule\n";
  auto line = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size(); ++c)
      out += (c ? " & " : "") + escape(row[c]);
    out += " \\\\\n";
  };
  line(t.header);
  out += "\\midrule\n";
  for (const auto& row : cells)
    line(row);
  out += "\\bottomrule\n\\end{tabular}\n";
  return out;
}

std::string markdown_table(const RunTable& t, const std::vector<std::vector<std::string>>& cells) {
  std::string out;
  auto escape = [](const std::string& s) {
    std::string e;
    for (char ch : s) {
      if (ch == '|') e += '\\';
      e += ch;
    }
    return e;
  };
  out += "|";
  for (const auto& h : t.header)
    out += " " + escape(h) + " |";
  out += "\n|";
  for (std::size_t c = 0; c < t.header.size(); ++c)
    out += t.numeric[c] ? "---:|" : "---|";
  out += '\n';
  for (const auto& row : cells) {
    out += "|";
    for (const auto& cell : row)
      out += " " + escape(cell) + " |";
    out += '\n';
  }
  return out;
}

// Columns aligned: text left, numbers right.
std::string text_table(const RunTable& t, const std::vector<std::vector<std::string>>& cells) {
  std::string out;
  std::vector<std::size_t> width(t.header.size());
  for (std::size_t c = 0; c < t.header.size(); ++c) {
    width[c] = t.header[c].size();
    for (const auto& row : cells)
      width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& row) {
    std::string l;
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c) l += "  ";
      l += t.numeric[c] ? fmt::format("{:>{}}", row[c], width[c])
                        : fmt::format("{:<{}}", row[c], width[c]);
    }
    while (!l.empty() && l.back() == ' ')
      l.pop_back();
    out += l + '\n';
  };
  line(t.header);
  for (const auto& row : cells)
    line(row);
  return out;
}

} // namespace

std::string format_run_table(const RunTable& t, const std::string& format) {
  if (format == "csv") return csv_table(t);
  const std::vector<std::vector<std::string>> cells = shown_cells(t);
  if (format == "latex") return latex_table(t, cells);
  if (format == "markdown") return markdown_table(t, cells);
  return text_table(t, cells);
}

} // namespace dlsim
