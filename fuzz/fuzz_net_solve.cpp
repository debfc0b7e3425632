// libFuzzer target for `dlsim net-solve`'s flows file (docs/network.md#dlsim-net-solve): the
// input is FLOWS.csv, solved by net_solve_text (sim/cli/net_solve.cpp, the command's body) on
// the bundled heterogeneous cluster (configs/clusters/hetero.yaml: NVLink, PCIe switches,
// racks), loaded once, with --links. It must give the rates or throw InputError (exit 1);
// anything else is a finding.
#include "fuzz/fuzz_scratch.h"
#include "sim/cli/experiment.h"
#include "sim/cli/net_solve.h"
#include "sim/cluster/cluster_yaml.h"
#include "sim/engine/error.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Loaded once, as the command loads it once: through the whole command, which loaded it for
  // every input, the target made about 100 execs/s.
  static const dlsim::Cluster cluster =
      dlsim::load_cluster_file(dlsim::find_data_file("configs/clusters/hetero.yaml", ""));
  std::string flows = dlsim::fuzz::memory_input("flows.csv", data, size);
  try {
    std::string out = dlsim::net_solve_text(cluster, flows, /*with_links=*/true);
    (void)out;
  } catch (const dlsim::InputError&) {
  }
  return 0;
}
