// libFuzzer target for `dlsim net-solve`'s flows file (docs/network.md#dlsim-net-solve): the
// input is FLOWS.csv, and the command runs as a user runs it on the bundled heterogeneous
// cluster (configs/clusters/hetero.yaml: NVLink, PCIe switches, racks), with --links. It must
// print the rates or throw InputError (exit 1); anything else is a finding. Its standard output
// goes to /dev/null.
#include "fuzz/fuzz_scratch.h"
#include "sim/cli/commands.h"
#include "sim/engine/error.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (std::freopen("/dev/null", "w", stdout) == nullptr) return 1;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string flows = dlsim::fuzz::memory_input("flows.csv", data, size);
  try {
    dlsim::command_net_solve(
        {"--cluster", "configs/clusters/hetero.yaml", "--flows", flows, "--links"});
  } catch (const dlsim::InputError&) {
  }
  return 0;
}
