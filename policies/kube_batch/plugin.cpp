// Plugin arguments and the plugin factory (kube-batch's plugins/factory.go).
#include "policies/kube_batch/plugin.h"

#include "sim/config/yaml_reader.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace dlsim::kb {

PluginArguments::PluginArguments(const PluginOptions& options, std::vector<std::string> keys,
                                 std::vector<std::string> prefixes)
    : options_(options) {
  const YAML::Node& args = options.arguments;
  if (!args.IsDefined() || args.IsNull()) return;
  for (const auto& kv : args) {
    auto key = kv.first.as<std::string>();
    bool known = std::find(keys.begin(), keys.end(), key) != keys.end();
    for (const auto& prefix : prefixes)
      known = known || key.rfind(prefix, 0) == 0;
    if (!known) {
      std::vector<std::string> valid = keys;
      for (const auto& prefix : prefixes)
        valid.push_back(prefix + "*");
      yaml_fail(YamlWhere{"", options.where + ".arguments." + key}, kv.first,
                fmt::format("plugin '{}' has no such argument (its arguments: {})", options.name,
                            valid.empty() ? std::string("none")
                                          : fmt::format("{}", fmt::join(valid, ", "))));
    }
  }
}

bool PluginArguments::has(const std::string& key) const {
  const YAML::Node& args = options_.arguments;
  return args.IsDefined() && args.IsMap() && args[key].IsDefined() && !args[key].IsNull();
}

double PluginArguments::number(const std::string& key, double fallback) const {
  if (!has(key)) return fallback;
  return yaml_as<double>(options_.arguments[key],
                         YamlWhere{"", options_.where + ".arguments." + key});
}

std::string PluginArguments::text(const std::string& key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  return yaml_as<std::string>(options_.arguments[key],
                              YamlWhere{"", options_.where + ".arguments." + key});
}

std::unique_ptr<Plugin> make_plugin(const PluginOptions& o) {
  if (o.name == "gang") return make_gang(o);
  if (o.name == "priority") return make_priority(o);
  if (o.name == "drf") return make_drf(o);
  if (o.name == "proportion") return make_proportion(o);
  if (o.name == "predicates") return make_predicates(o);
  if (o.name == "nodeorder") return make_nodeorder(o);
  if (o.name == "binpack") return make_binpack(o);
  if (o.name == "overcommit") return make_overcommit(o);
  if (o.name == "conformance") return make_conformance(o);
  throw InputError(fmt::format("{}.name: unknown plugin '{}'", o.where, o.name));
}

} // namespace dlsim::kb
