// --tolerance, --abs-tolerance, --direction, --worse-only, --metrics and --changed, read into
// CompareOptions.
#include "sim/cli/compare_options.h"

#include <boost/algorithm/string/classification.hpp>
#include <boost/algorithm/string/split.hpp>

namespace po = boost::program_options;

namespace dlsim {

void add_compare_options(po::options_description& o) {
  o.add_options()("tolerance,t", po::value<std::vector<std::string>>()->composing(),
                  "metric=REL: allowed relative change of a metric (0.01 = 1%); a bare REL sets "
                  "the default for all "
                  "metrics (default 0: any change is reported). Repeatable")(
      "abs-tolerance,a", po::value<std::vector<std::string>>()->composing(),
      "metric=ABS: allowed absolute change, in the metric's unit; a change within either "
      "tolerance passes; a bare ABS sets the default (default 0). Repeatable")(
      "direction", po::value<std::vector<std::string>>()->composing(),
      "metric=lower|higher|either: which way the metric is better (defaults: docs/ci.md). "
      "Repeatable")("worse-only", po::bool_switch(),
                    "fail only on changes for the worse (and on changes with no better "
                    "direction); an IMPROVED value passes")(
      "metrics", po::value<std::string>(),
      "compare only these metrics (comma-separated), in this order")(
      "changed", po::bool_switch(), "print only the values that changed");
}

CompareOptions compare_options_from(const po::variables_map& vm) {
  CompareOptions c;
  if (vm.count("tolerance")) {
    for (const auto& t : vm["tolerance"].as<std::vector<std::string>>())
      add_tolerance(c, t);
  }
  if (vm.count("abs-tolerance")) {
    for (const auto& t : vm["abs-tolerance"].as<std::vector<std::string>>())
      add_abs_tolerance(c, t);
  }
  if (vm.count("direction")) {
    for (const auto& d : vm["direction"].as<std::vector<std::string>>())
      add_direction(c, d);
  }
  c.worse_only = vm["worse-only"].as<bool>();
  if (vm.count("metrics")) {
    boost::split(c.metrics, vm["metrics"].as<std::string>(), boost::is_any_of(","));
    std::erase(c.metrics, std::string());
  }
  c.changed_only = vm["changed"].as<bool>();
  return c;
}

} // namespace dlsim
