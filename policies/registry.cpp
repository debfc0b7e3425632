#include "policies/registry.h"

#include "sim/engine/duration.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim {

namespace {

bool declares_oracle_param(const PolicyEntry& entry) {
  return std::any_of(entry.params.begin(), entry.params.end(),
                     [](const ParamSpec& p) { return p.key == "oracle"; });
}

// Reads the value as its declared type, so that a wrong type fails here with the accessor's
// message (naming the key) whether or not the policy reads it.
void check_type(const PolicyParams& params, const ParamSpec& p) {
  switch (p.type) {
  case ParamType::kNumber:
    (void)params.number(p.key);
    return;
  case ParamType::kSeconds:
    (void)params.seconds(p.key);
    return;
  case ParamType::kFlag:
    (void)params.flag(p.key);
    return;
  case ParamType::kText:
  case ParamType::kDataFile:
    (void)params.text(p.key);
    return;
  case ParamType::kNumbers:
    (void)params.numbers(p.key);
    return;
  case ParamType::kYaml:
    return;
  }
}

// The declared range (ParamRange): every number within it, a word among the choices.
void check_range(const PolicyParams& params, const ParamSpec& p) {
  const ParamRange& r = p.range;
  if (!r.choices.empty() && p.type == ParamType::kText) {
    const std::string v = params.text(p.key);
    if (std::find(r.choices.begin(), r.choices.end(), v) == r.choices.end())
      throw InputError(
          fmt::format("policy.params.{}: expected {}, got '{}'", p.key, describe_range(p), v));
    return;
  }
  if (!r.min && !r.max && !r.whole && !r.increasing) return;
  std::vector<double> values;
  if (p.type == ParamType::kNumber) values.push_back(params.number(p.key));
  if (p.type == ParamType::kSeconds) values.push_back(params.seconds(p.key));
  if (p.type == ParamType::kNumbers) values = params.numbers(p.key);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    const bool ok = std::isfinite(v) && (!r.min || (r.above_min ? v > *r.min : v >= *r.min)) &&
                    (!r.max || v <= *r.max) && (!r.whole || v == std::floor(v)) &&
                    (!r.increasing || i == 0 || v > values[i - 1]);
    if (ok) continue;
    // A list's offending number is named by its place, so a repeated value is found.
    const std::string at =
        p.type == ParamType::kNumbers ? fmt::format(" at position {}", i + 1) : std::string();
    throw InputError(
        fmt::format("policy.params.{}: expected {}, got {}{}", p.key, describe_range(p), v, at));
  }
}

} // namespace

std::string describe_range(const ParamSpec& p) {
  const ParamRange& r = p.range;
  if (!r.choices.empty()) return fmt::format("one of: {}", fmt::join(r.choices, ", "));
  if (!r.min && !r.max && !r.whole && !r.increasing) return "";
  std::string what = r.whole ? "a whole number" : "a number";
  if (p.type == ParamType::kSeconds) what = r.whole ? "a whole number of seconds" : "seconds";
  if (p.type == ParamType::kNumbers)
    what = fmt::format("{}{}", r.increasing ? "increasing " : "",
                       r.whole ? "whole numbers" : "numbers");
  if (r.min && r.max)
    return r.above_min ? fmt::format("{} in ({}, {}]", what, *r.min, *r.max)
                       : fmt::format("{} from {} to {}", what, *r.min, *r.max);
  if (r.min) return fmt::format("{} {} {}", what, r.above_min ? ">" : ">=", *r.min);
  if (r.max) return fmt::format("{} <= {}", what, *r.max);
  return what;
}

bool uses_oracle(const PolicyEntry& entry, const PolicyParams& params) {
  if (!entry.oracle) return false;
  return !declares_oracle_param(entry) || params.flag("oracle");
}

std::string oracle_tag(const PolicyEntry& entry) {
  if (!entry.oracle) return "";
  return declares_oracle_param(entry) ? "[oracle with oracle: true]" : "[oracle]";
}

PolicyParams resolve_params(const PolicyEntry& entry, const YAML::Node& given) {
  YAML::Node out(YAML::NodeType::Map);
  if (given.IsDefined() && !given.IsNull()) {
    if (!given.IsMap()) throw InputError("policy.params: expected a mapping of parameter to value");
    for (const auto& kv : given) {
      auto key = kv.first.as<std::string>();
      bool declared = false;
      for (const auto& p : entry.params)
        declared = declared || p.key == key;
      if (!declared) {
        std::vector<std::string> keys;
        for (const auto& p : entry.params)
          keys.push_back(p.key);
        throw InputError(fmt::format(
            "policy.params.{}: policy '{}' has no such parameter (its parameters: {})", key,
            entry.name, keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", "))));
      }
      out[key] = kv.second;
    }
  }
  for (const auto& p : entry.params) {
    if (!out[p.key].IsDefined() || out[p.key].IsNull()) out[p.key] = YAML::Load(p.default_value);
  }
  PolicyParams params(out, entry.name);
  for (const auto& p : entry.params) {
    check_type(params, p);
    check_range(params, p);
  }
  return params;
}

double PolicyParams::number(const std::string& key) const {
  try {
    return values_[key].as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(
        fmt::format("policy.params.{}: expected a number for policy '{}'", key, policy_));
  }
}

double PolicyParams::seconds(const std::string& key) const {
  const YAML::Node& n = values_[key];
  if (n.IsScalar()) {
    if (auto s = parse_duration_s(n.Scalar())) {
      // Every policy duration is a wait, an interval or a budget: a negative one means nothing
      // (elastic-kubeflow's wait_s=-1 ran as if 0).
      if (*s < 0) {
        throw InputError(fmt::format("policy.params.{}: expected a duration of 0 s or more for "
                                     "policy '{}', got {}",
                                     key, policy_, quote_input(n.Scalar(), 60)));
      }
      return *s;
    }
  }
  throw InputError(
      fmt::format("policy.params.{}: expected seconds (a number, or a duration such as "
                  "30s, 90m, 2h or 7d) for policy '{}'",
                  key, policy_));
}

bool PolicyParams::flag(const std::string& key) const {
  try {
    return values_[key].as<bool>();
  } catch (const YAML::Exception&) {
    throw InputError(
        fmt::format("policy.params.{}: expected true or false for policy '{}'", key, policy_));
  }
}

std::vector<double> PolicyParams::numbers(const std::string& key) const {
  const YAML::Node& n = values_[key];
  std::vector<double> out;
  try {
    if (n.IsScalar()) {
      out.push_back(n.as<double>());
    } else if (n.IsSequence()) {
      for (const auto& v : n)
        out.push_back(v.as<double>());
    } else {
      throw YAML::Exception(YAML::Mark::null_mark(), "not a list");
    }
  } catch (const YAML::Exception&) {
    throw InputError(
        fmt::format("policy.params.{}: expected a list of numbers for policy '{}'", key, policy_));
  }
  return out;
}

std::string PolicyParams::text(const std::string& key) const {
  try {
    return values_[key].as<std::string>();
  } catch (const YAML::Exception&) {
    throw InputError(
        fmt::format("policy.params.{}: expected a string for policy '{}'", key, policy_));
  }
}

} // namespace dlsim
