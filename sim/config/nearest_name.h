// "Did you mean ...?" for a misspelt name: the known names a few edits away from it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dlsim {

// Levenshtein distance: the fewest one-character insertions, deletions and substitutions.
std::size_t edit_distance(const std::string& a, const std::string& b);

// The known names at most 1 + |name|/4 edits from `name` (case-insensitive), nearest first, at
// most three; empty when none is near.
std::vector<std::string> nearest_names(const std::string& name,
                                       const std::vector<std::string>& known);

// "unknown WHAT 'NAME' (did you mean A, B?)", or "... (known: all of them)" when none is near.
std::string unknown_name_message(const std::string& what, const std::string& name,
                                 const std::vector<std::string>& known);

} // namespace dlsim
