// The input options `run` and `validate` share: --experiment, --cluster, --trace, --format,
// --policy, --seed, --set, --skip-bad-jobs.
#pragma once

#include "sim/cli/experiment.h"

#include <boost/program_options.hpp>

namespace dlsim {

void add_input_options(boost::program_options::options_description& options);
ExperimentInputs inputs_from(const boost::program_options::variables_map& vm);

} // namespace dlsim
