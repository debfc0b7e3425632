// The options `compare` and `run --check-against` share: --tolerance, --abs-tolerance,
// --direction, --worse-only, --metrics, --changed.
#pragma once

#include "sim/cli/compare.h"

#include <boost/program_options.hpp>

namespace dlsim {

void add_compare_options(boost::program_options::options_description& options);
CompareOptions compare_options_from(const boost::program_options::variables_map& vm);

} // namespace dlsim
