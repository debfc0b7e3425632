// Unsigned command-line flags. Boost reads "-5" into an unsigned integer as 2^64 - 5 (so
// `--seed -1` became 18446744073709551615 and `gen-trace -n -5` asked for 18 billion jobs);
// a flag declared as po::value<Count>() accepts decimal digits only and says so otherwise.
#pragma once

#include <boost/any.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dlsim {

struct Count {
  std::uint64_t value = 0;
};

// Found by Boost.Program_options through argument-dependent lookup.
void validate(boost::any& out, const std::vector<std::string>& values, Count*, int);

} // namespace dlsim
