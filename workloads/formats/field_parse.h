// Parsing one CSV field into a number with an error that names the file, line and column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dlsim {

struct FieldError {
  std::string what; // "expected a number, got 'abc'"
};

// Each returns nullopt for an empty (or absent) field, and throws FieldError for a bad one.
std::optional<double> parse_double_field(const char* text);
std::optional<std::int64_t> parse_int_field(const char* text);

} // namespace dlsim
