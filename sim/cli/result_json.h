// Reading the JSON files dlsim wrote (summary.json, a sweep's sweep.json) back for the analysis
// commands (compare, table, plot, sweep --collect). The files may have been edited, cut short or
// replaced, so reading them is reading input: nesting is bounded, since nlohmann's dump and
// dlsim's flattening recurse once per level, and a file of 100,000 nested brackets overflowed the
// stack (exit 139). dlsim's own files nest 3 levels.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace dlsim {

inline constexpr int kMaxResultJsonDepth = 64;

// Parses `text`; InputError "where: not valid JSON: ..." for bad JSON or nesting deeper than
// kMaxResultJsonDepth.
nlohmann::ordered_json parse_result_json(std::string_view text, const std::string& where);

// Reads and parses the file `file`; InputError "file: cannot read" when it cannot be opened.
nlohmann::ordered_json read_result_json(const std::string& file);

} // namespace dlsim
