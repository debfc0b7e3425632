// Writing numbers into YAML the way a person would: 0.52, not 0.52000000000000002.
#pragma once

#include <yaml-cpp/yaml.h>

namespace dlsim {

// Rewrites, in place, every scalar of the tree that is a decimal number printed with more digits
// than it needs (yaml-cpp encodes doubles with 17 significant digits) as the shortest text that
// reads back as the same double. Other scalars are left alone, so the tree still reads back to
// exactly the same values.
void shorten_doubles(YAML::Node node);

} // namespace dlsim
