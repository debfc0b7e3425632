// Reading a pasted kube-batch / Volcano scheduler configuration (see config.h).
#include "policies/kube_batch/config.h"

#include "sim/config/yaml_reader.h"
#include "sim/engine/error.h"

#include <boost/algorithm/string.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace dlsim::kb {

const std::vector<std::string>& action_names() {
  static const std::vector<std::string> names = {"enqueue", "allocate", "backfill", "preempt",
                                                 "reclaim"};
  return names;
}

const std::vector<std::string>& plugin_names() {
  static const std::vector<std::string> names = {"priority",  "gang",       "conformance",
                                                 "drf",       "predicates", "proportion",
                                                 "nodeorder", "binpack",    "overcommit"};
  return names;
}

namespace {

YamlWhere at(const std::string& path) {
  return YamlWhere{"", path};
}

std::vector<std::string> parse_actions(const YAML::Node& node) {
  std::string text;
  try {
    text = node.as<std::string>();
  } catch (const YAML::Exception&) {
    yaml_fail(at("policy.params.actions"), node,
              "expected a comma-separated string such as \"enqueue, allocate, backfill\"");
  }
  std::vector<std::string> parts;
  boost::split(parts, text, boost::is_any_of(","));
  std::vector<std::string> out;
  for (auto& p : parts) {
    boost::trim(p);
    if (p.empty()) continue;
    const auto& known = action_names();
    if (std::find(known.begin(), known.end(), p) == known.end()) {
      yaml_fail(at("policy.params.actions"), node,
                fmt::format("unknown action '{}' (dlsim models: {})", p, fmt::join(known, ", ")));
    }
    out.push_back(p);
  }
  if (out.empty()) yaml_fail(at("policy.params.actions"), node, "no action given");
  return out;
}

// The flags of scheduler_conf.go that dlsim models, and the ones it accepts without effect
// (hierarchical queues, hyper-nodes, reservations and sub-jobs are not modeled).
const std::set<std::string>& ignored_flags() {
  static const std::set<std::string> s = {
      "enableHierarchy",       "enabledClusterOrder",     "enableBestNode",
      "enableTargetJob",       "enableReservedNodes",     "enabledVictim",
      "enabledHyperNodeOrder", "enabledSubJobReady",      "enabledSubJobPipelined",
      "enabledSubJobOrder",    "enabledHyperNodeGradient"};
  return s;
}

PluginOptions parse_plugin(const YAML::Node& node, const std::string& path) {
  YamlMap m(node, at(path));
  PluginOptions p;
  p.where = path;
  p.name = m.require<std::string>("name");
  const auto& known = plugin_names();
  if (std::find(known.begin(), known.end(), p.name) == known.end()) {
    yaml_fail(
        m.where_of("name"), m.child("name"),
        fmt::format("unknown plugin '{}' (dlsim models: {})", p.name, fmt::join(known, ", ")));
  }
  const std::pair<const char*, bool PluginOptions::*> flags[] = {
      {"enableJobOrder", &PluginOptions::job_order},
      {"enableJobReady", &PluginOptions::job_ready},
      {"enableJobPipelined", &PluginOptions::job_pipelined},
      {"enableTaskOrder", &PluginOptions::task_order},
      {"enablePreemptable", &PluginOptions::preemptable},
      {"enableReclaimable", &PluginOptions::reclaimable},
      {"enablePreemptive", &PluginOptions::preemptive},
      {"enableQueueOrder", &PluginOptions::queue_order},
      {"enablePredicate", &PluginOptions::predicate},
      {"enableNodeOrder", &PluginOptions::node_order},
      {"enableJobEnqueued", &PluginOptions::job_enqueued},
      {"enableJobStarving", &PluginOptions::job_starving},
      {"enabledOverused", &PluginOptions::overused},
      {"enabledAllocatable", &PluginOptions::allocatable},
  };
  for (const auto& [key, member] : flags)
    p.*member = m.get<bool>(key, true);
  for (const auto& key : ignored_flags())
    (void)m.get<bool>(key, true);
  p.arguments = m.child("arguments");
  if (p.arguments.IsDefined() && !p.arguments.IsNull() && !p.arguments.IsMap()) {
    yaml_fail(m.where_of("arguments"), p.arguments, "expected a mapping of argument to value");
  }
  m.done();
  return p;
}

std::vector<std::vector<PluginOptions>> parse_tiers(const YAML::Node& node) {
  if (!node.IsSequence()) {
    yaml_fail(at("policy.params.tiers"), node,
              "expected a list of tiers: [{plugins: [{name: gang}, ...]}, ...]");
  }
  std::vector<std::vector<PluginOptions>> tiers;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < node.size(); ++i) {
    std::string path = fmt::format("policy.params.tiers.{}", i);
    YamlMap tier(node[i], at(path));
    YAML::Node plugins = tier.child("plugins");
    if (!plugins.IsSequence()) {
      yaml_fail(tier.where_of("plugins"), node[i], "expected a list of plugins: [{name: ...}]");
    }
    tier.done();
    std::vector<PluginOptions> list;
    for (std::size_t k = 0; k < plugins.size(); ++k) {
      PluginOptions p = parse_plugin(plugins[k], fmt::format("{}.plugins.{}", path, k));
      if (!seen.insert(p.name).second) {
        yaml_fail(at(p.where + ".name"), plugins[k],
                  fmt::format("plugin '{}' is listed twice", p.name));
      }
      list.push_back(std::move(p));
    }
    tiers.push_back(std::move(list));
  }
  return tiers;
}

// A Kubernetes quantity: a number, or a string with a decimal (k, M, G, T), binary (Ki, Mi,
// Gi, Ti) or milli (m) suffix. Returns the plain value.
double parse_quantity(const YAML::Node& node, const YamlWhere& where) {
  std::string s;
  try {
    s = node.as<std::string>();
  } catch (const YAML::Exception&) {
    yaml_fail(where, node, "expected a number or a Kubernetes quantity (\"500m\", \"64Gi\")");
  }
  static const std::vector<std::pair<std::string, double>> suffixes = {
      {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
      {"k", 1e3},     {"M", 1e6},        {"G", 1e9},           {"T", 1e12},
      {"m", 1e-3}};
  double scale = 1;
  std::string digits = s;
  for (const auto& [suffix, k] : suffixes) {
    if (s.size() > suffix.size() &&
        s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0) {
      digits = s.substr(0, s.size() - suffix.size());
      scale = k;
      break;
    }
  }
  try {
    std::size_t used = 0;
    double x = std::stod(digits, &used);
    if (used != digits.size() || !(x >= 0) || !std::isfinite(x)) throw std::invalid_argument(s);
    return x * scale;
  } catch (const std::exception&) {
    yaml_fail(where, node,
              fmt::format("'{}' is not a non-negative quantity (\"500m\", \"64Gi\")", s));
  }
}

Resources parse_capability(const YAML::Node& node, const YamlWhere& where) {
  YamlMap m(node, where);
  Resources cap = Resources::infinite();
  if (m.has("nvidia.com/gpu"))
    cap.v[0] = parse_quantity(m.child("nvidia.com/gpu"), m.where_of("nvidia.com/gpu"));
  if (m.has("cpu")) cap.v[1] = parse_quantity(m.child("cpu"), m.where_of("cpu"));
  // Memory in bytes, as Kubernetes writes it; dlsim counts GB of 2^30 bytes ("64Gi" = 64).
  if (m.has("memory"))
    cap.v[2] = parse_quantity(m.child("memory"), m.where_of("memory")) / 1073741824.0;
  m.done();
  return cap;
}

std::vector<QueueSpec> parse_queues(const YAML::Node& node) {
  if (node.IsNull()) return {};
  if (!node.IsSequence()) {
    yaml_fail(at("policy.params.queues"), node,
              "expected a list of queues: [{name: a, weight: 3, capability: {nvidia.com/gpu: 8}}]");
  }
  std::vector<QueueSpec> out;
  for (std::size_t i = 0; i < node.size(); ++i) {
    YamlMap m(node[i], at(fmt::format("policy.params.queues.{}", i)));
    QueueSpec q;
    q.name = m.require<std::string>("name");
    q.weight = m.get<double>("weight", 1);
    // Volcano's weight is an integer in [1, 2^31-1]; dlsim takes any positive number.
    if (!(q.weight > 0)) yaml_fail(m.where_of("weight"), m.child("weight"), "must be positive");
    if (m.has("capability"))
      q.capability = parse_capability(m.child("capability"), m.where_of("capability"));
    q.reclaimable = m.get<bool>("reclaimable", true);
    m.done();
    for (const auto& other : out) {
      if (other.name == q.name) {
        yaml_fail(m.where_of("name"), m.child("name"),
                  fmt::format("queue '{}' is listed twice", q.name));
      }
    }
    out.push_back(std::move(q));
  }
  return out;
}

} // namespace

Config parse_config(const PolicyParams& params) {
  Config c;
  c.actions = parse_actions(params.node("actions"));
  c.tiers = parse_tiers(params.node("tiers"));
  c.queues = parse_queues(params.node("queues"));
  c.elastic_at_min = params.flag("elastic_at_min");
  return c;
}

} // namespace dlsim::kb
