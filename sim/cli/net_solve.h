// The body of `dlsim net-solve` (docs/network.md#dlsim-net-solve): a cluster and a flows file
// in, each flow's max-min fair rate and route out, as the command prints them. Apart from the
// command so that the flows file can be fuzzed against a cluster loaded once
// (fuzz/fuzz_net_solve.cpp).
#pragma once

#include "sim/cluster/cluster.h"

#include <string>

namespace dlsim {

// Reads FLOWS.csv (src, dst, and optionally flow, cap_gbps) against `cluster`, shares its links
// max-min fairly as a run with network.contention does, and returns the CSV the command prints:
// flow,src,dst,rate_gbps,route, then with `with_links` a blank line and every directed link.
// InputError naming the file, line and column for a bad flows file.
std::string net_solve_text(const Cluster& cluster, const std::string& flows_file, bool with_links);

} // namespace dlsim
