// Clusters described by trace files: an openb node list (`--cluster openb:FILE`) or the PAI 2020
// machine spec (`--cluster pai2020:FILE`), turned into the cluster YAML that
// configs/clusters/*.yaml uses (docs/traces.md#clusters-from-traces).
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

namespace dlsim {

struct TraceClusterSpec {
  std::string format; // "openb" or "pai2020"
  std::string file;
};

// "openb:FILE" or "pai2020:FILE"; nullopt for anything else (a cluster YAML path).
std::optional<TraceClusterSpec> parse_trace_cluster_spec(const std::string& text);

// The cluster YAML for the spec. Identical nodes (same GPU model and count, CPU and memory)
// form one node group, in order of first appearance. Bad rows are InputErrors naming
// file:line: column.
YAML::Node trace_cluster_yaml(const TraceClusterSpec& spec);
YAML::Node openb_cluster_yaml(const std::string& node_list_file);
YAML::Node pai2020_cluster_yaml(const std::string& machine_spec_file);

} // namespace dlsim
