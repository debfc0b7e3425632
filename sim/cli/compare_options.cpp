// --tolerance, --metrics and --changed, read into CompareOptions.
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
      "metrics", po::value<std::string>(), "compare only these metrics (comma-separated)")(
      "changed", po::bool_switch(), "print only the values that changed");
}

CompareOptions compare_options_from(const po::variables_map& vm) {
  CompareOptions c;
  if (vm.count("tolerance")) {
    for (const auto& t : vm["tolerance"].as<std::vector<std::string>>())
      add_tolerance(c, t);
  }
  if (vm.count("metrics")) {
    boost::split(c.metrics, vm["metrics"].as<std::string>(), boost::is_any_of(","));
    std::erase(c.metrics, std::string());
  }
  c.changed_only = vm["changed"].as<bool>();
  return c;
}

} // namespace dlsim
