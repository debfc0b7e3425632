// dlsim-cluster-from-trace: prints the cluster YAML that `--cluster openb:FILE` or
// `--cluster pai2020:FILE` stands for; the bundled configs/clusters/{openb-*,pai2020}.yaml are
// its output (docs/traces.md#clusters-from-traces).
#include "sim/engine/error.h"
#include "workloads/cluster_from_trace.h"

#include <fmt/format.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]).find(':') == std::string::npos) {
    std::fputs(
        "usage: dlsim-cluster-from-trace openb:NODE_LIST.csv | pai2020:pai_machine_spec.csv\n",
        stderr);
    return 2;
  }
  try {
    auto spec = dlsim::parse_trace_cluster_spec(argv[1]);
    if (!spec)
      throw dlsim::InputError(
          fmt::format("expected openb:FILE or pai2020:FILE, got '{}'", argv[1]));
    YAML::Node root = dlsim::trace_cluster_yaml(*spec);
    YAML::Emitter out;
    out << root;
    fmt::print("# Made by dlsim-cluster-from-trace {} (docs/traces.md#clusters-from-traces).\n{}\n",
               argv[1], out.c_str());
    return 0;
  } catch (const dlsim::InputError& e) {
    fmt::print(stderr, "dlsim-cluster-from-trace: error: {}\n", e.what());
    return 1;
  }
}
