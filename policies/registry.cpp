#include "policies/registry.h"

#include "policies/fifo.h"
#include "policies/sjf.h"
#include "policies/srtf.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

namespace dlsim {

const std::vector<PolicyEntry>& policy_registry() {
  static const std::vector<PolicyEntry> entries = {
      {"fifo", "first in, first out; strict order: a job that does not fit blocks the ones behind it",
       false, {}, [](const PolicySetup& s) { return make_fifo(s.placement); }},
      {"sjf", "shortest job first (oracle: reads true durations); non-preemptive, strict order", true,
       {}, [](const PolicySetup& s) { return make_sjf(s.placement); }},
      {"srtf",
       "shortest remaining time first (oracle); preempts longer jobs for shorter ones", true, {},
       [](const PolicySetup& s) { return make_srtf(s.placement); }},
  };
  return entries;
}

const PolicyEntry& find_policy(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& e : policy_registry()) {
    if (e.name == name) return e;
    names.push_back(e.name);
  }
  throw InputError(fmt::format("policy.name: unknown policy '{}' (known: {})", name, fmt::join(names, ", ")));
}

PolicyParams resolve_params(const PolicyEntry& entry, const YAML::Node& given) {
  YAML::Node out(YAML::NodeType::Map);
  if (given.IsDefined() && !given.IsNull()) {
    if (!given.IsMap()) throw InputError("policy.params: expected a mapping of parameter to value");
    for (const auto& kv : given) {
      auto key = kv.first.as<std::string>();
      bool declared = false;
      for (const auto& p : entry.params) declared = declared || p.key == key;
      if (!declared) {
        std::vector<std::string> keys;
        for (const auto& p : entry.params) keys.push_back(p.key);
        throw InputError(fmt::format("policy.params.{}: policy '{}' has no such parameter (its parameters: {})",
                                     key, entry.name, keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", "))));
      }
      out[key] = kv.second;
    }
  }
  for (const auto& p : entry.params) {
    if (!out[p.key].IsDefined() || out[p.key].IsNull()) out[p.key] = YAML::Load(p.default_value);
  }
  return PolicyParams(out, entry.name);
}

double PolicyParams::number(const std::string& key) const {
  try {
    return values_[key].as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(fmt::format("policy.params.{}: expected a number for policy '{}'", key, policy_));
  }
}

bool PolicyParams::flag(const std::string& key) const {
  try {
    return values_[key].as<bool>();
  } catch (const YAML::Exception&) {
    throw InputError(fmt::format("policy.params.{}: expected true or false for policy '{}'", key, policy_));
  }
}

std::string PolicyParams::text(const std::string& key) const {
  try {
    return values_[key].as<std::string>();
  } catch (const YAML::Exception&) {
    throw InputError(fmt::format("policy.params.{}: expected a string for policy '{}'", key, policy_));
  }
}

}  // namespace dlsim
