// The subcommands of `dlsim` of the command line proper (the analysis commands are declared in
// sim/cli/analysis/commands.h). Each returns the process exit code: 0 ok, 1 bad input, 2 bad usage.
#pragma once

#include <string>
#include <vector>

namespace dlsim {

int command_run(const std::vector<std::string>& args);
int command_validate(const std::vector<std::string>& args);
int command_list(const std::vector<std::string>& args);
int command_gen_trace(const std::vector<std::string>& args);
int command_net_solve(const std::vector<std::string>& args);
int command_predict(const std::vector<std::string>& args);
int command_calibrate(const std::vector<std::string>& args);

} // namespace dlsim
