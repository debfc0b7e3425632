// `dlsim table RUN_DIR...` (docs/outputs.md#dlsim-table).
#include "sim/cli/analysis/commands.h"
#include "sim/cli/analysis/run_table.h"
#include "sim/cli/common_options.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <iostream>
#include <sstream>

namespace po = boost::program_options;

namespace dlsim {

int command_table(const std::vector<std::string>& args) {
  po::options_description o(
      "dlsim table RUN_DIR... [options]\n\nOne row per result directory of `dlsim run`: its "
      "policy, seed, the run.yaml keys\nwhose values differ among the runs, and metrics from "
      "summary.json.\n\nOptions");
  o.add_options()("format", po::value<std::string>()->default_value("text"),
                  "text (aligned, rounded), csv (exact), markdown or latex (booktabs)")(
      "metrics", po::value<std::string>(),
      "comma-separated summary.json keys, nested ones dotted (util_by_kind.gpu.alloc); "
      "default: jobs,finished,makespan_s,jct_mean_s,jct_p95_s,queue_mean_s,gpu_util_alloc,"
      "gpu_util_effective,gpu_util_busy,preemptions")(
      "columns", po::value<std::string>(),
      "comma-separated columns to show instead, in this order: run, policy, seed, any run.yaml "
      "key (policy.params.interval_s) or summary.json key")("help,h", "this help");
  po::options_description hidden;
  hidden.add_options()("run", po::value<std::vector<std::string>>());
  po::variables_map vm;
  if (!parse_command_line(args, o, hidden, -1, vm)) return 0;
  if (!vm.count("run")) throw po::error("give at least one RUN_DIR");
  std::string format = vm["format"].as<std::string>();
  if (format != "text" && format != "csv" && format != "markdown" && format != "latex")
    throw po::error(fmt::format("--format expects text, csv, markdown or latex, got '{}'", format));
  auto list = [&](const char* option) {
    std::vector<std::string> names;
    std::istringstream in(vm[option].as<std::string>());
    std::string m;
    while (std::getline(in, m, ','))
      if (!m.empty()) names.push_back(m);
    if (names.empty()) throw po::error(fmt::format("--{}: give at least one name", option));
    return names;
  };
  std::vector<std::string> columns;
  if (vm.count("columns")) columns = list("columns");
  // With --columns, the default metrics are not required of the runs: only what is named.
  std::vector<std::string> metrics = vm.count("metrics") ? list("metrics")
                                     : columns.empty()   ? default_table_metrics()
                                                         : std::vector<std::string>{};
  RunTable t = build_run_table(vm["run"].as<std::vector<std::string>>(), metrics, columns);
  std::cout << format_run_table(t, format);
  return 0;
}

} // namespace dlsim
