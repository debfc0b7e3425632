// Reading a cluster from YAML (strict: unknown keys and wrong types are errors naming the key
// path) and writing the resolved cluster back, every default filled in.
#pragma once

#include "sim/cluster/cluster.h"

#include <yaml-cpp/yaml.h>

#include <string>

namespace dlsim {

// `file` is only used in error messages ("" for an inline cluster: "<experiment>").
Cluster load_cluster(const YAML::Node& root, const std::string& file,
                     const std::string& key_prefix = "");
Cluster load_cluster_file(const std::string& file);
YAML::Node cluster_to_yaml(const Cluster& cluster);

// Bandwidth of a PCIe link in GB/s per direction: per-lane rate after encoding overhead
// (gen1 0.25, gen2 0.5, gen3 0.985, gen4 1.969, gen5 3.938 GB/s) times the lane count.
double pcie_gb_s(int gen, int lanes);

} // namespace dlsim
