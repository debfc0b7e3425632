// `dlsim net-solve`: a what-if tool for the network model. Reads a cluster and a list of flows,
// shares the links max-min fairly exactly as a run does (sim/network), and prints each flow's
// rate and route (docs/network.md#dlsim-net-solve).
#include "sim/cli/commands.h"
#include "sim/cli/common_options.h"
#include "sim/cli/experiment.h"
#include "sim/cli/net_solve.h"
#include "sim/cluster/cluster_yaml.h"

#include <boost/program_options.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace po = boost::program_options;

namespace dlsim {

int command_net_solve(const std::vector<std::string>& args) {
  po::options_description o(
      "dlsim net-solve --cluster FILE --flows FLOWS.csv [--links]\n\n"
      "Shares the cluster's links max-min fairly among the given flows, exactly as a run with\n"
      "network.contention does, and prints one CSV row per flow:\n"
      "  flow,src,dst,rate_gbps,route\n"
      "rate_gbps is in GB/s (bytes, like every bandwidth in dlsim); route is the '|'-joined\n"
      "directed links crossed. FLOWS.csv has the columns src and dst (a device id as\n"
      "`dlsim validate --devices` prints it, or a host socket n<node>.socket<s>), and optionally\n"
      "flow (a label; default: the row number from 0) and cap_gbps (the flow's own limit).\n\n"
      "Options");
  o.add_options()("cluster", po::value<std::string>(), "cluster YAML (required)")(
      "flows", po::value<std::string>(),
      "flows CSV (required)")("links", po::bool_switch(),
                              "then a blank line and every directed link: "
                              "link,kind,gb_s,latency_us,flows,load_gbps")("help,h", "this help");
  po::variables_map vm;
  if (!parse_command_line(args, o, vm)) return 0; // --help
  if (!vm.count("cluster")) throw po::error("--cluster FILE is required");
  if (!vm.count("flows")) throw po::error("--flows FLOWS.csv is required");
  // A bundled cluster (configs/clusters/...) is found from any directory, as by `dlsim run`.
  Cluster cluster = load_cluster_file(find_data_file(vm["cluster"].as<std::string>(), ""));
  const std::string out =
      net_solve_text(cluster, vm["flows"].as<std::string>(), vm["links"].as<bool>());
  std::fputs(out.c_str(), stdout);
  return 0;
}

} // namespace dlsim
