// Hyper-parameter search sessions: reading session files, drawing trials, writing their rows.
#include "workloads/hyperparam_search.h"

#include "workloads/formats/trace_limits.h"

#include "sim/config/yaml_reader.h"
#include "sim/engine/error.h"
#include "sim/engine/rng.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace dlsim {

double learning_curve(double a, double tau, double p) {
  return a * (1 - std::exp(-p / tau)) / (1 - std::exp(-1 / tau));
}

std::optional<double> progress_to_reach(double a, double tau, double target) {
  if (a < target) return std::nullopt;
  // Solve a (1 - e^{-p/tau}) / (1 - e^{-1/tau}) = target for p.
  double inside = 1 - (target / a) * (1 - std::exp(-1 / tau));
  return std::clamp(-tau * std::log(inside), 0.0, 1.0);
}

std::vector<SearchTrial> draw_trials(const SearchSession& s) {
  // One stream per purpose and session: changing the rungs does not change the accuracies.
  Rng accuracy = Rng::stream(s.seed, "automl." + s.name + ".accuracy");
  Rng noise = Rng::stream(s.seed, "automl." + s.name + ".noise");
  std::vector<SearchTrial> out(s.trials);
  for (std::uint32_t k = 0; k < s.trials; ++k) {
    SearchTrial& t = out[k];
    t.index = k;
    t.job = fmt::format("{}-t{}", s.name, k);
    t.accuracy = s.accuracy_low + (s.accuracy_high - s.accuracy_low) * accuracy.uniform01();
    t.target_progress = progress_to_reach(t.accuracy, s.curve_tau, s.target);
  }
  // Noise drawn rung by rung, trial by trial, whether or not it is used.
  for (std::size_t r = 0; r < s.rungs.size(); ++r) {
    for (auto& t : out)
      t.rung_noise.push_back(s.noise > 0 ? noise.normal(0, s.noise) : 0.0);
  }
  return out;
}

namespace {

// A name gen-trace writes unquoted into the native CSV trace (a trial's id and user, its model):
// it must read back as itself, or the automl policy does not find its trials and a quote or a
// line break makes a trace `dlsim validate` refuses. So no comma, double quote or control
// character, and no space or tab at either end (the CSV readers trim those).
bool csv_safe_name(const std::string& name) {
  if (name.empty() || name.front() == ' ' || name.back() == ' ' || name.front() == '\t' ||
      name.back() == '\t') {
    return false;
  }
  return std::none_of(name.begin(), name.end(), [](char c) {
    return c == ',' || c == '"' || (static_cast<unsigned char>(c) < 0x20) || c == 0x7f;
  });
}

// The session's name, submit time, trials and what each trial asks for.
void read_trials(YamlMap& m, SearchSession& s) {
  s.name = m.require<std::string>("name");
  if (!csv_safe_name(s.name)) {
    yaml_fail(m.where_of("name"), m.child("name"),
              "must be a non-empty name without commas, double quotes, control characters or "
              "spaces at either end");
  }
  // Bounded as the trace gen-trace writes is read (trace_limits.h): `budget_s: 3e88` wrote a
  // trace that `dlsim run` refused.
  s.submit_s = m.require<double>("submit_s");
  if (!(s.submit_s >= 0 && s.submit_s <= kMaxTraceSeconds)) {
    yaml_fail(m.where_of("submit_s"), m.child("submit_s"),
              fmt::format("must be 0 to {:g} s, got {}", kMaxTraceSeconds, s.submit_s));
  }
  s.trials = m.get<std::uint32_t>("trials", s.trials);
  // Bounded before draw_trials allocates them: `trials: 1e9` is a typo, not a search.
  constexpr std::uint32_t kMaxTrials = 1'000'000;
  if (s.trials < 1 || s.trials > kMaxTrials)
    yaml_fail(m.where_of("trials"), m.child("trials"),
              fmt::format("must be 1 to {} (docs/gandiva.md#the-sessions-file), got {}", kMaxTrials,
                          s.trials));
  s.gpus_per_trial = m.get<std::uint32_t>("gpus_per_trial", s.gpus_per_trial);
  if (s.gpus_per_trial < 1 || s.gpus_per_trial > kMaxTraceGpus) {
    yaml_fail(m.where_of("gpus_per_trial"), m.child("gpus_per_trial"),
              fmt::format("must be 1 to {}, got {}", kMaxTraceGpus, s.gpus_per_trial));
  }
  s.model = m.get<std::string>("model", s.model);
  if (!s.model.empty() && !csv_safe_name(s.model)) {
    yaml_fail(m.where_of("model"), m.child("model"),
              "must be a model name without commas, double quotes, control characters or spaces "
              "at either end");
  }
  s.budget_s = m.get<double>("budget_s", s.budget_s);
  if (!(s.budget_s > 0 && s.budget_s <= kMaxTraceSeconds)) {
    yaml_fail(
        m.where_of("budget_s"), m.child("budget_s"),
        fmt::format("must be positive and at most {:g} s, got {}", kMaxTraceSeconds, s.budget_s));
  }
}

// The trials' accuracies: their range, the target and the learning curve's time constant.
void read_accuracy(YamlMap& m, SearchSession& s) {
  YAML::Node acc_node = m.child("accuracy");
  YamlMap acc(acc_node, m.where_of("accuracy"));
  s.accuracy_low = acc.get<double>("low", s.accuracy_low);
  s.accuracy_high = acc.get<double>("high", s.accuracy_high);
  acc.done();
  if (!(0 <= s.accuracy_low && s.accuracy_low <= s.accuracy_high && s.accuracy_high <= 1)) {
    yaml_fail(m.where_of("accuracy"), acc_node,
              fmt::format("need 0 <= low <= high <= 1, got low {} and high {}", s.accuracy_low,
                          s.accuracy_high));
  }
  s.target = m.get<double>("target", s.target);
  if (!(s.target > 0 && s.target <= 1))
    yaml_fail(m.where_of("target"), m.child("target"), "must be in (0, 1]");
  s.curve_tau = m.get<double>("curve_tau", s.curve_tau);
  if (!(s.curve_tau > 0))
    yaml_fail(m.where_of("curve_tau"), m.child("curve_tau"), "must be positive");
}

// The rungs, increasing fractions of the progress, when given.
void read_rungs(YamlMap& m, SearchSession& s) {
  YAML::Node rungs = m.child("rungs");
  if (!rungs.IsDefined() || rungs.IsNull()) return;
  if (!rungs.IsSequence())
    yaml_fail(m.where_of("rungs"), rungs, "expected a list of progress fractions");
  s.rungs.clear();
  for (std::size_t i = 0; i < rungs.size(); ++i) {
    double f = yaml_as<double>(rungs[i], m.where_of("rungs"));
    if (!(f > 0 && f < 1) || (!s.rungs.empty() && !(f > s.rungs.back()))) {
      yaml_fail(
          m.where_of("rungs"), rungs,
          fmt::format("expected increasing fractions in (0, 1), got {} at position {}", f, i + 1));
    }
    s.rungs.push_back(f);
  }
}

SearchSession read_session(YamlMap& m) {
  SearchSession s;
  read_trials(m, s);
  read_accuracy(m, s);
  read_rungs(m, s);
  s.keep = m.get<double>("keep", s.keep);
  if (!(s.keep > 0 && s.keep <= 1))
    yaml_fail(m.where_of("keep"), m.child("keep"), "must be in (0, 1]");
  s.noise = m.get<double>("noise", s.noise);
  if (!(s.noise >= 0)) yaml_fail(m.where_of("noise"), m.child("noise"), "must not be negative");
  std::string rule = m.get<std::string>("rule", "sync");
  if (rule != "sync" && rule != "async") {
    yaml_fail(m.where_of("rule"), m.child("rule"), "must be sync or async");
  }
  s.asynchronous = rule == "async";
  s.seed = m.get<std::uint64_t>("seed", s.seed);
  m.done();
  return s;
}

std::vector<SearchSession> sessions_of(const YAML::Node& root, const std::string& file) {
  if (!root.IsMap())
    throw InputError(file + ": a sessions file must be a mapping with the key 'sessions'");
  YamlMap top(root, YamlWhere{file, ""});
  YAML::Node list = top.child("sessions");
  top.done();
  if (!list.IsSequence() || list.size() == 0) {
    yaml_fail(top.where_of("sessions"), root, "expected a non-empty list of sessions");
  }
  std::vector<SearchSession> out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) {
    YamlWhere where{file, fmt::format("sessions.{}", i)};
    if (!list[i].IsMap()) yaml_fail(where, list[i], "expected a mapping");
    YamlMap m(list[i], where);
    out.push_back(read_session(m));
    if (!names.insert(out.back().name).second) {
      yaml_fail(YamlWhere{file, where.path + ".name"}, list[i],
                fmt::format("duplicate session name '{}'", out.back().name));
    }
  }
  return out;
}

} // namespace

std::vector<SearchSession> load_search_sessions(const std::string& file) {
  return sessions_of(load_yaml_file(file), file);
}

std::vector<SearchSession> parse_search_sessions(const std::string& text, const std::string& file) {
  return sessions_of(load_yaml_text(text, file), file);
}

namespace {

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ','))
    out.push_back(field);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

struct Row {
  double submit;
  int order; // 0 background, 1 trials: background first on ties
  std::size_t seq;
  std::string text;
};

} // namespace

void merge_trials_into_trace(const std::string& background,
                             const std::vector<SearchSession>& sessions, std::ostream& out) {
  std::istringstream in(background);
  std::string header;
  std::getline(in, header);
  std::vector<std::string> columns = split_commas(header);
  auto column = [&](const std::string& name) -> std::optional<std::size_t> {
    auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end()) return std::nullopt;
    return static_cast<std::size_t>(it - columns.begin());
  };
  auto submit_col = column("submit_s");
  if (!submit_col)
    throw InputError("gen-trace --sessions: the background trace has no submit_s column");
  bool add_model =
      !column("model") && std::any_of(sessions.begin(), sessions.end(),
                                      [](const SearchSession& s) { return !s.model.empty(); });
  if (add_model) columns.emplace_back("model");

  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto fields = split_commas(line);
    double submit = std::stod(fields.at(*submit_col));
    rows.push_back({submit, 0, rows.size(), add_model ? line + "," : line});
  }
  for (const auto& s : sessions) {
    for (const auto& t : draw_trials(s)) {
      std::vector<std::string> f(columns.size());
      for (std::size_t c = 0; c < columns.size(); ++c) {
        const std::string& name = columns[c];
        if (name == "id")
          f[c] = t.job;
        else if (name == "submit_s")
          f[c] = fmt::format("{}", s.submit_s);
        else if (name == "workers")
          f[c] = "1";
        else if (name == "gpus_per_worker")
          f[c] = fmt::format("{}", s.gpus_per_trial);
        else if (name == "duration_s")
          f[c] = fmt::format("{}", s.budget_s * t.work_fraction());
        else if (name == "user")
          f[c] = s.name;
        else if (name == "model")
          f[c] = s.model;
      }
      rows.push_back({s.submit_s, 1, rows.size(), fmt::format("{}", fmt::join(f, ","))});
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.submit != b.submit ? a.submit < b.submit : a.order < b.order;
  });
  out << fmt::format("{}", fmt::join(columns, ",")) << '\n';
  for (const auto& r : rows)
    out << r.text << '\n';
}

void write_trials_truth(const std::vector<SearchSession>& sessions, std::ostream& out) {
  out << "session,job,submit_s,accuracy,target,reaches_target,target_progress,work_s,budget_s\n";
  for (const auto& s : sessions) {
    for (const auto& t : draw_trials(s)) {
      out << fmt::format("{},{},{},{},{},{},{},{},{}\n", s.name, t.job, s.submit_s, t.accuracy,
                         s.target, t.target_progress ? 1 : 0,
                         t.target_progress ? fmt::format("{}", *t.target_progress) : "",
                         s.budget_s * t.work_fraction(), s.budget_s);
    }
  }
}

} // namespace dlsim
