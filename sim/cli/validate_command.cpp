// `dlsim validate`: reads everything a run would read and prints what it found, one
// `key: value` per line, without running.
#include "policies/registry.h"
#include "sim/cli/commands.h"
#include "sim/cli/common_options.h"
#include "sim/cli/prepare.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <iostream>
#include <map>

namespace po = boost::program_options;

namespace dlsim {

int command_validate(const std::vector<std::string>& args) {
  po::options_description o(
      "dlsim validate [options]\n\nChecks an experiment (cluster, trace, policy, parameters) "
      "without running it and\nprints what it read, one `key: value` per line.\n\nOptions");
  add_input_options(o);
  o.add_options()("devices", po::bool_switch(),
                  "also list every device: id, type, node, rack")("help,h", "this help");
  po::variables_map vm;
  if (!parse_command_line(args, o, vm)) return 0; // --help
  Prepared p = prepare(inputs_from(vm), std::cerr);
  const Experiment& e = p.experiment;
  const Cluster& c = e.cluster;
  const Workload& w = p.workload;
  fmt::print("experiment: {}\n", e.source_file);
  fmt::print("cluster: {}\n", e.cluster_file.empty() ? "inline" : e.cluster_file);
  fmt::print("nodes: {}\n", c.nodes.size());
  fmt::print("racks: {}\n", c.rack_count);
  fmt::print("gpus: {}\n", c.count_of_kind(DeviceKind::kGpu));
  fmt::print("devices: {}\n", c.devices.size());
  for (std::size_t t = 0; t < c.types.size(); ++t) {
    if (auto n = c.count_of_type(static_cast<DeviceTypeId>(t)))
      fmt::print("devices.{}: {}\n", c.types[t].name, n);
  }
  fmt::print("links: {}\n", c.topology.link_count());
  fmt::print("trace: {}\n", e.trace_file);
  fmt::print("format: {}\n", e.trace_format);
  fmt::print("jobs: {}\n", w.jobs.size());
  fmt::print("skipped_bad_jobs: {}\n", w.skipped_bad_jobs);
  std::uint64_t gpus = 0;
  std::size_t with_model = 0;
  for (const auto& j : w.jobs) {
    gpus += j.request.devices();
    with_model += j.request.model != 0;
  }
  fmt::print("requested_devices: {}\n", gpus);
  fmt::print("jobs_with_model: {}\n", with_model);
  fmt::print("first_submit_s: {}\n", to_seconds(w.jobs.front().request.submit));
  fmt::print("last_submit_s: {}\n", to_seconds(w.jobs.back().request.submit));
  fmt::print("models: {}\n", p.zoo.models.size());
  fmt::print("policy: {}\n", e.policy);
  fmt::print("placement: {}\n", e.placement);
  fmt::print("seed: {}\n", e.seed);
  if (vm["devices"].as<bool>()) {
    fmt::print("device,type,node,rack\n");
    for (DeviceId d = 0; d < c.devices.size(); ++d) {
      fmt::print("{},{},{},{}\n", d, c.type_of(d).name, c.devices[d].node, c.rack_of(d));
    }
  }
  return 0;
}

} // namespace dlsim
