// `dlsim compare BASELINE NEW...`: exits 1 when any metric of any NEW moved beyond its tolerance
// (for the worse only, with --worse-only).
#include "sim/cli/analysis/commands.h"
#include "sim/cli/common_options.h"
#include "sim/cli/compare.h"
#include "sim/cli/compare_options.h"

#include <boost/program_options.hpp>

#include <iostream>

namespace po = boost::program_options;

namespace dlsim {

int command_compare(const std::vector<std::string>& args) {
  po::options_description o(
      "dlsim compare BASELINE NEW... [options]\n\nCompares summary.json files, or sweep "
      "results.csv files matched by run id, with one\n"
      "baseline (a directory stands for the results.csv or summary.json in it). Prints each\n"
      "metric's baseline and new value, the relative change and IMPROVED / REGRESSION /\n"
      "CHANGED for a change beyond its tolerance; exits 1 when any NEW has one (with\n"
      "--worse-only: one that is not IMPROVED), 0 otherwise.\n\nOptions");
  add_compare_options(o);
  o.add_options()("help,h", "this help");
  po::options_description hidden;
  hidden.add_options()("files", po::value<std::vector<std::string>>());
  po::variables_map vm;
  if (!parse_command_line(args, o, hidden, -1, vm)) return 0;
  if (!vm.count("files") || vm["files"].as<std::vector<std::string>>().size() < 2) {
    throw po::error("expects a baseline and at least one file to compare: BASELINE NEW...");
  }
  const auto& files = vm["files"].as<std::vector<std::string>>();
  CompareOptions options = compare_options_from(vm);
  // Every file is read (and every option checked against it) before anything is printed.
  const ResultSet baseline = read_result_set(files[0]);
  std::vector<Comparison> comparisons;
  for (std::size_t i = 1; i < files.size(); ++i)
    comparisons.push_back(compare_result_sets(baseline, read_result_set(files[i]), options));
  std::size_t fails = 0;
  for (std::size_t i = 0; i < comparisons.size(); ++i) {
    if (comparisons.size() > 1) std::cout << (i > 0 ? "\n" : "") << "== " << files[i + 1] << '\n';
    print_comparison(std::cout, comparisons[i], files[0], files[i + 1], options.changed_only);
    fails += comparisons[i].fails;
  }
  return fails == 0 ? 0 : 1;
}

} // namespace dlsim
