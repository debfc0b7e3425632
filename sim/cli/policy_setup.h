// A policy's setup from the experiment: its parameters resolved and the files they name read here,
// at the edge, so that policies/ does no file I/O.
#pragma once

#include "policies/registry.h"

#include <yaml-cpp/yaml.h>

namespace dlsim {

// Resolves `given` (policy.params) against the entry and reads the file of every kSessionsFile
// parameter (relative paths: the current directory, then dlsim's source tree, find_data_file).
PolicySetup make_policy_setup(const PolicyEntry& entry, Placement placement,
                              const YAML::Node& given);

// Every search trial must name a job of the trace. Checked here, before the run, because the
// search controller binds each trial to its job only when that job is submitted (a policy sees
// no job before its submission).
void check_search_trials(const PolicySetup& setup, const Workload& workload);

} // namespace dlsim
