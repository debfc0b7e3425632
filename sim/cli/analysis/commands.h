// The analysis subcommands of `dlsim`: they read the results runs wrote (sweep also runs them).
// Each returns the process exit code: 0 ok, 1 bad input, 2 bad usage.
#pragma once

#include <string>
#include <vector>

namespace dlsim {

int command_sweep(const std::vector<std::string>& args);
int command_compare(const std::vector<std::string>& args);
int command_plot(const std::vector<std::string>& args);
int command_table(const std::vector<std::string>& args);

} // namespace dlsim
