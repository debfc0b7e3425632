// The input options `run` and `validate` share: --experiment, --cluster, --trace, --format,
// --policy, --seed, --set, --skip-bad-jobs.
#pragma once

#include "sim/cli/experiment.h"

#include <boost/program_options.hpp>

#include <string>
#include <vector>

namespace dlsim {

void add_input_options(boost::program_options::options_description& options);
ExperimentInputs inputs_from(const boost::program_options::variables_map& vm);
// The file named by option --FLAG, found by find_data_file; InputError naming the flag when it
// is not there.
std::string existing_file(const boost::program_options::variables_map& vm, const char* flag);

// Parses a command's arguments into `vm`: the `visible` options (what --help prints) and the
// positional arguments, up to `max_positional` of them (-1: any number), stored under the one
// option `hidden` declares. Returns false when --help was given, after printing `visible`: the
// command then exits 0.
bool parse_command_line(const std::vector<std::string>& args,
                        const boost::program_options::options_description& visible,
                        const boost::program_options::options_description& hidden,
                        int max_positional, boost::program_options::variables_map& vm);
// The same for a command that takes no positional arguments.
bool parse_command_line(const std::vector<std::string>& args,
                        const boost::program_options::options_description& visible,
                        boost::program_options::variables_map& vm);

} // namespace dlsim
