// libFuzzer target for the YAML loader: the input is a cluster YAML, read by yaml-cpp and checked
// by load_cluster (sim/cluster/cluster_yaml.cpp), the most structural of the YAML readers (sizes
// checked against sim/cluster/limits.h before anything is allocated). It must give a cluster or
// throw InputError or a YAML exception (both exit 1 in dlsim); anything else is a bug.
#include "sim/cluster/cluster_yaml.h"
#include "sim/engine/error.h"

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    YAML::Node root = YAML::Load(text);
    dlsim::Cluster cluster = dlsim::load_cluster(root, "fuzz.yaml", "");
    (void)cluster;
  } catch (const dlsim::InputError&) {
  } catch (const YAML::Exception&) {
  }
  return 0;
}
