// libFuzzer target for the clusters made from trace files: the first byte picks the openb node
// list ('o') or the PAI machine spec (anything else); the rest is the file. The YAML it gives
// is loaded as a cluster, as `--cluster openb:FILE` does. Only InputError may come out.
#include "fuzz/fuzz_scratch.h"
#include "sim/cluster/cluster_yaml.h"
#include "sim/engine/error.h"
#include "workloads/cluster_from_trace.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool openb = data[0] == 'o';
  std::string file = dlsim::fuzz::write_input("nodes.csv", data + 1, size - 1);
  try {
    YAML::Node yaml = openb ? dlsim::openb_cluster_yaml(file) : dlsim::pai2020_cluster_yaml(file);
    dlsim::Cluster cluster = dlsim::load_cluster(yaml, file);
    (void)cluster;
  } catch (const dlsim::InputError&) {
  }
  return 0;
}
