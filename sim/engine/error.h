// Error types that cross layers: bad user input (exit code 1) and bad usage (exit code 2).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace dlsim {

// Input that cannot be used: a file, a YAML key or a trace row. The message names where
// ("file:line: field: reason") so that a user can fix it without reading code.
class InputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A policy asked for an action the runtime cannot carry out (over-committed device, broken
// gang, wrong device type). The message names the policy, the job and the reason.
class ActionError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A piece of user input for an error message: in single quotes, cut to its first `max` bytes
// with the full length said after it, so that a 2-million-element value never makes a 15 MB
// message (error.cpp).
std::string quote_input(std::string_view text, std::size_t max = 200);

} // namespace dlsim
