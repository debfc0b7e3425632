// A YAML tree as (dotted path, scalar) pairs: cluster.nodes.0.count -> "4". Used to tell two
// run.yaml apart key by key (dlsim table, the default directory's check).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>
#include <vector>

namespace dlsim {

// Appends `node`'s leaves under `prefix` in document order; sequence items are numbered from 0,
// a null or empty node is "".
void flatten_yaml(const YAML::Node& node, const std::string& prefix,
                  std::vector<std::pair<std::string, std::string>>& out);

} // namespace dlsim
