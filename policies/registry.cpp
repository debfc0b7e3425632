#include "policies/registry.h"

#include "policies/aiturbo/aiturbo.h"
#include "policies/drf.h"
#include "policies/elastic_kubeflow.h"
#include "policies/external/external.h"
#include "policies/fifo.h"
#include "policies/fifo_backfill.h"
#include "policies/gandiva/gandiva.h"
#include "policies/gavel/gavel_policy.h"
#include "policies/gpu_share.h"
#include "policies/hot_spares.h"
#include "policies/k8s_default.h"
#include "policies/kube_batch/kube_batch.h"
#include "policies/las.h"
#include "policies/max_throughput.h"
#include "policies/scoring/score_policy.h"
#include "policies/search_sessions.h"
#include "policies/shortest_gpu_time.h"
#include "policies/sjf.h"
#include "policies/srtf.h"
#include "policies/tiresias.h"
#include "policies/util_packing.h"
#include "sim/config/nearest_name.h"
#include "sim/engine/duration.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim {

// Every policy, in the order `dlsim list policies` prints them: one line each.
const std::vector<PolicyEntry>& policy_registry() {
  static const std::vector<PolicyEntry> entries = {
      fifo_policy(),
      hot_spares_policy(),
      sjf_policy(),
      srtf_policy(),
      fifo_backfill_policy(),
      shortest_gpu_time_policy(),
      tiresias_policy(),
      las_policy(),
      max_throughput_policy(),
      gavel_max_min_policy(),
      gavel_throughput_policy(),
      gavel_finish_time_policy(),
      gavel_makespan_policy(),
      drf_policy(),
      k8s_default_policy(),
      elastic_kubeflow_policy(),
      kube_batch_policy("kube-batch"),
      kube_batch_policy("volcano"),
      gandiva_policy(),
      automl_policy(),
      gpu_share_policy(),
      score_random_policy(),
      score_dot_product_policy(),
      score_gpu_clustering_policy(),
      score_gpu_packing_policy(),
      score_best_fit_policy(),
      fgd_policy(),
      util_slot_policy(),
      util_reactive_policy(),
      util_proactive_policy(),
      aiturbo_policy(),
      optimus_policy(),
      external_policy(),
  };
  return entries;
}

const PolicyEntry& find_policy(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& e : policy_registry()) {
    if (e.name == name) return e;
    names.push_back(e.name);
  }
  throw InputError("policy.name: " + unknown_name_message("policy", name, names));
}

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
  case ParamType::kSessionsFile:
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
  if (!r.min && !r.max && !r.whole) return;
  std::vector<double> values;
  if (p.type == ParamType::kNumber) values.push_back(params.number(p.key));
  if (p.type == ParamType::kSeconds) values.push_back(params.seconds(p.key));
  if (p.type == ParamType::kNumbers) values = params.numbers(p.key);
  for (double v : values) {
    const bool ok = std::isfinite(v) && (!r.min || (r.above_min ? v > *r.min : v >= *r.min)) &&
                    (!r.max || v <= *r.max) && (!r.whole || v == std::floor(v));
    if (!ok)
      throw InputError(
          fmt::format("policy.params.{}: expected {}, got {}", p.key, describe_range(p), v));
  }
}

} // namespace

std::string describe_range(const ParamSpec& p) {
  const ParamRange& r = p.range;
  if (!r.choices.empty()) return fmt::format("one of: {}", fmt::join(r.choices, ", "));
  if (!r.min && !r.max && !r.whole) return "";
  std::string what = r.whole ? "a whole number" : "a number";
  if (p.type == ParamType::kSeconds) what = r.whole ? "a whole number of seconds" : "seconds";
  if (p.type == ParamType::kNumbers) what = r.whole ? "whole numbers" : "numbers";
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
