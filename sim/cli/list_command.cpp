// `dlsim list policies|formats|devices|models|placements|keys`.
#include "policies/registry.h"
#include "sim/cli/commands.h"
#include "sim/cli/experiment.h"
#include "sim/cli/experiment_keys.h"
#include "sim/cluster/device_catalog.h"
#include "sim/engine/error.h"
#include "workloads/formats/registry.h"
#include "workloads/model_zoo.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>

namespace po = boost::program_options;

namespace dlsim {

int command_list(const std::vector<std::string>& args) {
  const std::string usage = "usage: dlsim list policies|formats|devices|models|placements|keys";
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    fmt::print("{}\n", usage);
    return args.empty() ? 2 : 0;
  }
  const std::string& what = args[0];
  if (what == "policies") {
    // The name column is as wide as the longest name, so that descriptions line up.
    std::size_t width = 0;
    for (const auto& p : policy_registry())
      width = std::max(width, p.name.size());
    for (const auto& p : policy_registry()) {
      std::string tag = oracle_tag(p);
      if (p.handles_failures) tag += tag.empty() ? "[failures]" : " [failures]";
      fmt::print("{:<{}} {}{}\n", p.name, width, p.description, tag.empty() ? "" : " " + tag);
      for (const auto& param : p.params) {
        const std::string range = describe_range(param);
        fmt::print("  {:<24} {} (default: {}{}{})\n", param.key, param.doc, param.default_value,
                   range.empty() ? "" : "; ", range);
      }
    }
    fmt::print("\nEvery policy also takes policy.placement: {}\n",
               fmt::join(placement_names(), ", "));
  } else if (what == "formats") {
    for (const auto& f : trace_formats())
      fmt::print("{:<12} {}\n", f.name, f.description);
  } else if (what == "devices") {
    fmt::print("{:<8} {:<8} {:>9} {:>12} {:>8}  {}\n", "name", "kind", "memory_gb", "fp32_tflops",
               "rel_v100", "source");
    for (const auto& t : builtin_device_types()) {
      fmt::print("{:<8} {:<8} {:>9} {:>12} {:>8}  {}\n", t.name, to_string(t.kind), t.memory_gb,
                 t.peak_fp32_tflops, t.rel_throughput, t.source);
    }
  } else if (what == "models") {
    ModelZoo zoo = load_model_zoo(find_data_file("configs/models/zoo.yaml", ""));
    fmt::print("{:<14} {:<15} {:>9} {:>10} {:>8} {:>8}  iteration_time_s\n", "name", "family",
               "params_m", "gflops/smp", "gpu_util", "mem_gb");
    for (const auto& m : zoo.models) {
      std::vector<std::string> times;
      for (const auto& [dev, s] : m.iteration_time_s)
        times.push_back(fmt::format("{}={}", dev, s));
      for (const auto& [dev, why] : m.unsupported)
        times.push_back(fmt::format("{}=unsupported", dev)); // the reason: configs/models/zoo.yaml
      fmt::print("{:<14} {:<15} {:>9} {:>10} {:>8} {:>8}  {}\n", m.name, m.family, m.params_m,
                 m.gflops_per_sample, m.gpu_util, m.gpu_mem_gb, fmt::join(times, " "));
    }
  } else if (what == "keys") {
    // The key reference of docs/experiments.md, with each key's default.
    Experiment defaults;
    fmt::print("{}", config_keys_markdown(experiment_keys(defaults)));
  } else if (what == "placements") {
    fmt::print("{}\n", fmt::join(placement_names(), "\n"));
  } else {
    fmt::print(stderr, "dlsim list: unknown list '{}'\n{}\n", what, usage);
    return 2;
  }
  return 0;
}

} // namespace dlsim
