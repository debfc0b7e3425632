#include "sim/cli/yaml_flatten.h"

namespace dlsim {

void flatten_yaml(const YAML::Node& node, const std::string& prefix,
                  std::vector<std::pair<std::string, std::string>>& out) {
  auto name = [&](const std::string& k) { return prefix.empty() ? k : prefix + "." + k; };
  if (node.IsMap()) {
    for (const auto& kv : node)
      flatten_yaml(kv.second, name(kv.first.Scalar()), out);
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      flatten_yaml(node[i], name(std::to_string(i)), out);
  } else if (node.IsScalar()) {
    out.emplace_back(prefix, node.Scalar());
  } else {
    out.emplace_back(prefix, "");
  }
}

} // namespace dlsim
