// A policy's setup from the experiment: its parameters resolved and the files they name read here,
// at the edge, so that policies/ does no file I/O.
#pragma once

#include "policies/registry.h"

#include <yaml-cpp/yaml.h>

namespace dlsim {

// Resolves `given` (policy.params) against the entry and reads the text of every kDataFile
// parameter's file (relative paths: the current directory, then dlsim's source tree,
// find_data_file).
PolicySetup make_policy_setup(const PolicyEntry& entry, Placement placement,
                              const YAML::Node& given);

} // namespace dlsim
