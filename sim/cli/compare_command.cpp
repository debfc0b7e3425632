// `dlsim compare BASELINE NEW`: exits 1 when any metric moved beyond its tolerance.
#include "sim/cli/commands.h"
#include "sim/cli/compare.h"
#include "sim/cli/compare_options.h"

#include <boost/program_options.hpp>

#include <iostream>

namespace po = boost::program_options;

namespace dlsim {

int command_compare(const std::vector<std::string>& args) {
  po::options_description o(
      "dlsim compare BASELINE NEW [options]\n\nCompares two summary.json files, or two sweep "
      "results.csv files matched by run id\n"
      "(a directory stands for the results.csv or summary.json in it). Prints each metric's\n"
      "baseline and new value and the relative change; exits 1 when any change is beyond its\n"
      "tolerance, 0 otherwise.\n\nOptions");
  add_compare_options(o);
  o.add_options()("help,h", "this help");
  po::options_description hidden;
  hidden.add_options()("files", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(o).add(hidden);
  po::positional_options_description pos;
  pos.add("files", 2);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << o << '\n';
    return 0;
  }
  if (!vm.count("files") || vm["files"].as<std::vector<std::string>>().size() != 2) {
    throw po::error("expects two files: BASELINE NEW");
  }
  const auto& files = vm["files"].as<std::vector<std::string>>();
  CompareOptions options = compare_options_from(vm);
  Comparison c = compare_result_sets(read_result_set(files[0]), read_result_set(files[1]), options);
  print_comparison(std::cout, c, files[0], files[1], options.changed_only);
  return c.beyond == 0 ? 0 : 1;
}

} // namespace dlsim
