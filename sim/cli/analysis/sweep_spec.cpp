// Reading a sweep spec and expanding its grid and list into runs with stable ids.
#include "sim/cli/analysis/sweep_spec.h"
#include "sim/report/json_text.h"

#include "sim/cli/experiment_keys.h"
#include "sim/cli/result_json.h"
#include "sim/config/path_probe.h"
#include "sim/config/yaml_reader.h"
#include "sim/engine/error.h"
#include "sim/report/writers.h"

#include <boost/crc.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

namespace fs = std::filesystem;

namespace dlsim {

namespace {

// A value as the text `--set key=value` would take: plain scalars as written, quoted scalars
// quoted (so that "1" stays a string), lists and maps in YAML flow style.
std::string value_text(const YAML::Node& n) {
  if (n.IsScalar() && n.Tag() != "!") return n.Scalar();
  YAML::Emitter em;
  em.SetMapFormat(YAML::Flow);
  em.SetSeqFormat(YAML::Flow);
  if (n.IsScalar()) em << YAML::DoubleQuoted;
  em << n;
  return em.c_str();
}

// The values of one grid key: a list, a single value, or an integer range "A..B" (alone or as
// a list item; inclusive), e.g. `seed: 1..10` or `seed: [1..3, 7]`.
std::vector<std::string> grid_values(const YAML::Node& n, const YamlWhere& where) {
  static const std::regex range(R"(^\s*(-?[0-9]+)\s*\.\.\s*(-?[0-9]+)\s*$)");
  std::vector<std::string> out;
  auto add = [&](const YAML::Node& item) {
    std::smatch m;
    if (item.IsScalar() && item.Tag() != "!" && std::regex_match(item.Scalar(), m, range)) {
      // Bounds beyond 64 bits are an error here, not std::stoll's out_of_range.
      long long a = 0, b = 0;
      for (auto [text, v] : {std::pair{m[1].str(), &a}, std::pair{m[2].str(), &b}}) {
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *v);
        if (ec != std::errc() || end != text.data() + text.size())
          yaml_fail(where, item,
                    fmt::format("range bound {} is not a 64-bit integer", quote_input(text)));
      }
      if (a > b)
        yaml_fail(where, item,
                  fmt::format("range {}..{} is empty (the first must not exceed the last)", a, b));
      if (static_cast<unsigned long long>(b) - static_cast<unsigned long long>(a) >=
          kMaxSweepRuns) {
        yaml_fail(where, item,
                  fmt::format("range {}..{} is longer than {} values", a, b, kMaxSweepRuns));
      }
      for (long long v = a; v <= b; ++v)
        out.push_back(std::to_string(v));
    } else if (item.IsNull()) {
      yaml_fail(where, item, "a value is empty");
    } else {
      out.push_back(value_text(item));
    }
  };
  if (n.IsSequence()) {
    for (const auto& item : n)
      add(item);
  } else {
    add(n);
  }
  if (out.empty()) yaml_fail(where, n, "needs at least one value");
  return out;
}

void check_key(const std::string& key, const YamlWhere& where, const YAML::Node& n) {
  if (key.empty() || key.front() == '.' || key.back() == '.' ||
      key.find("..") != std::string::npos) {
    yaml_fail(where, n, fmt::format("'{}' is not a dotted key path such as policy.name", key));
  }
  // Named before any run starts, with the sweep file's line (experiment_keys.cpp).
  Experiment any;
  std::string problem = unknown_key_problem(experiment_keys(any), key);
  if (!problem.empty()) yaml_fail(where, n, fmt::format("{}: {}", key, problem));
}

std::string sanitized(const std::string& v) {
  std::string out;
  for (char c : v.substr(0, 24)) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '+';
    out += keep ? c : '_';
  }
  return out;
}

} // namespace

std::string sweep_run_id(const Overrides& overrides) {
  std::string prefix;
  for (const auto& [k, v] : overrides)
    prefix += (prefix.empty() ? "" : "_") + sanitized(v);
  if (prefix.size() > 48) prefix.resize(48);
  if (prefix.empty()) prefix = "base";
  // The hash covers the sorted list, so it does not depend on the order the spec names the keys.
  Overrides sorted = overrides;
  std::sort(sorted.begin(), sorted.end());
  std::string canonical;
  for (const auto& [k, v] : sorted)
    canonical.append(k).append("=").append(v).append("\n");
  boost::crc_32_type crc;
  crc.process_bytes(canonical.data(), canonical.size());
  return fmt::format("{}-{:08x}", prefix, crc.checksum());
}

namespace {

// The list's variants (each a set of overrides); their keys join s.keys.
std::vector<Overrides> read_sweep_list(YamlMap& top, const std::string& file, SweepSpec& s) {
  std::vector<Overrides> variants;
  YAML::Node list = top.child("list");
  if (list.IsDefined() && !list.IsNull()) {
    if (!list.IsSequence())
      yaml_fail(top.where_of("list"), list, "expected a list of mappings (one per run)");
    for (std::size_t i = 0; i < list.size(); ++i) {
      YamlWhere where{file, fmt::format("list.{}", i)};
      if (!list[i].IsMap() || list[i].size() == 0)
        yaml_fail(where, list[i], "expected a mapping of dotted keys to values");
      Overrides o;
      for (const auto& kv : list[i]) {
        std::string key = kv.first.as<std::string>();
        check_key(key, where, kv.first);
        o.emplace_back(key, value_text(kv.second));
        if (std::find(s.keys.begin(), s.keys.end(), key) == s.keys.end()) s.keys.push_back(key);
      }
      variants.push_back(std::move(o));
    }
  }
  return variants;
}

// The grid's keys and their values; its keys join s.keys, and none may be the list's.
std::vector<std::pair<std::string, std::vector<std::string>>>
read_sweep_grid(YamlMap& top, const std::string& file, SweepSpec& s) {
  std::vector<std::pair<std::string, std::vector<std::string>>> grid;
  YAML::Node grid_node = top.child("grid");
  if (grid_node.IsDefined() && !grid_node.IsNull()) {
    if (!grid_node.IsMap())
      yaml_fail(top.where_of("grid"), grid_node,
                "expected a mapping of dotted keys to lists of values");
    for (const auto& kv : grid_node) {
      std::string key = kv.first.as<std::string>();
      YamlWhere where{file, "grid." + key};
      check_key(key, where, kv.first);
      if (std::find(s.keys.begin(), s.keys.end(), key) != s.keys.end()) {
        yaml_fail(where, kv.first, "this key is also in list: give each key in one place");
      }
      s.keys.push_back(key);
      grid.emplace_back(key, grid_values(kv.second, where));
    }
  }
  return grid;
}

// Every variant crossed with every combination of the grid, as s.runs.
void expand_sweep(SweepSpec& s, const std::vector<Overrides>& variants,
                  const std::vector<std::pair<std::string, std::vector<std::string>>>& grid,
                  const std::string& file) {
  std::size_t combos = 1;
  for (const auto& [k, values] : grid) {
    combos *= values.size();
    if (combos * variants.size() > kMaxSweepRuns) {
      throw InputError(
          fmt::format("{}: the sweep expands to more than {} runs", file, kMaxSweepRuns));
    }
  }
  // Row-major: the first grid key varies slowest, the last fastest.
  for (const auto& variant : variants) {
    for (std::size_t c = 0; c < combos; ++c) {
      Overrides o = variant;
      std::size_t rest = c;
      std::vector<std::size_t> pick(grid.size());
      for (std::size_t g = grid.size(); g-- > 0;) {
        pick[g] = rest % grid[g].second.size();
        rest /= grid[g].second.size();
      }
      for (std::size_t g = 0; g < grid.size(); ++g)
        o.emplace_back(grid[g].first, grid[g].second[pick[g]]);
      // Column order, so that ids and rows read the same way.
      Overrides ordered;
      for (const auto& key : s.keys) {
        for (const auto& kv : o) {
          if (kv.first == key) ordered.push_back(kv);
        }
      }
      SweepRun run;
      run.index = s.runs.size();
      run.overrides = std::move(ordered);
      run.id = sweep_run_id(run.overrides);
      s.runs.push_back(std::move(run));
    }
  }
}

} // namespace

SweepSpec load_sweep_spec(const std::string& file) {
  YAML::Node root = load_yaml_file(file);
  YamlMap top(root, YamlWhere{file, ""});
  if (!root.IsMap())
    throw InputError(file + ": a sweep spec must be a YAML mapping (experiment, set, grid, list)");
  SweepSpec s;
  s.spec_file = file;
  s.name = top.get<std::string>("name", fs::path(file).stem().string());
  std::string experiment = top.get<std::string>("experiment", "configs/experiments/default.yaml");
  s.experiment = find_data_file(experiment, file);
  if (!path_exists(s.experiment)) {
    yaml_fail(top.where_of("experiment"), top.child("experiment"),
              fmt::format("'{}': no such file", experiment));
  }

  YAML::Node set = top.child("set");
  if (set.IsDefined() && !set.IsNull()) {
    if (!set.IsMap())
      yaml_fail(top.where_of("set"), set, "expected a mapping of dotted keys to values");
    for (const auto& kv : set) {
      std::string key = kv.first.as<std::string>();
      check_key(key, YamlWhere{file, "set"}, kv.first);
      s.fixed.emplace_back(key, value_text(kv.second));
    }
  }

  // The list's variants (each a set of overrides), crossed with the grid's combinations.
  std::vector<Overrides> variants = read_sweep_list(top, file, s);
  const auto grid = read_sweep_grid(top, file, s);
  top.done();
  if (variants.empty() && grid.empty()) {
    throw InputError(file + ": a sweep needs a grid or a list (or both) of overrides");
  }
  if (variants.empty()) variants.emplace_back();

  expand_sweep(s, variants, grid, file);
  std::map<std::string, std::size_t> seen;
  for (const auto& r : s.runs) {
    auto [it, fresh] = seen.emplace(r.id, r.index);
    if (!fresh) {
      throw InputError(
          fmt::format("{}: runs {} and {} have the same overrides (id {}): each run must differ",
                      file, it->second, r.index, r.id));
    }
  }
  return s;
}

ExperimentInputs sweep_run_inputs(const SweepSpec& spec, const SweepRun& run) {
  ExperimentInputs in;
  in.experiment_file = spec.experiment;
  in.overrides = spec.fixed;
  in.overrides.insert(in.overrides.end(), run.overrides.begin(), run.overrides.end());
  return in;
}

namespace {

constexpr const char* kPlanFile = "sweep.json";

nlohmann::ordered_json pairs_json(const Overrides& o) {
  auto a = nlohmann::ordered_json::array();
  for (const auto& [k, v] : o)
    a.push_back({k, v});
  return a;
}

Overrides pairs_from(const nlohmann::ordered_json& a) {
  Overrides o;
  for (const auto& p : a)
    o.emplace_back(p.at(0).get<std::string>(), p.at(1).get<std::string>());
  return o;
}

} // namespace

void write_sweep_plan(const std::string& dir, const SweepSpec& s) {
  nlohmann::ordered_json j;
  j["name"] = s.name;
  j["spec"] = s.spec_file;
  j["experiment"] = s.experiment;
  j["set"] = pairs_json(s.fixed);
  j["keys"] = s.keys;
  j["runs"] = nlohmann::ordered_json::array();
  for (const auto& r : s.runs)
    j["runs"].push_back({{"id", r.id}, {"overrides", pairs_json(r.overrides)}});
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw InputError(fmt::format("{}: cannot create the sweep directory: {}", dir, ec.message()));
  write_file_atomically((fs::path(dir) / kPlanFile).string(),
                        [&](std::ostream& out) { out << json_text(j, 1) << '\n'; });
}

SweepSpec read_sweep_plan(const std::string& dir) {
  std::string file = (fs::path(dir) / kPlanFile).string();
  if (!path_exists(file))
    throw InputError(
        fmt::format("{}: cannot read: is {} a sweep directory (made by dlsim sweep)?", file, dir));
  SweepSpec s;
  auto j = read_result_json(file);
  try {
    s.name = j.at("name").get<std::string>();
    s.spec_file = j.at("spec").get<std::string>();
    s.experiment = j.at("experiment").get<std::string>();
    s.fixed = pairs_from(j.at("set"));
    s.keys = j.at("keys").get<std::vector<std::string>>();
    for (const auto& r : j.at("runs")) {
      SweepRun run;
      run.index = s.runs.size();
      run.id = r.at("id").get<std::string>();
      run.overrides = pairs_from(r.at("overrides"));
      s.runs.push_back(std::move(run));
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not a sweep plan: {}", file, e.what()));
  }
  return s;
}

} // namespace dlsim
