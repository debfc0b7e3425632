// Every key of an experiment YAML, declared once (sim/config/config_key.h): the trace, model zoo,
// policy, report and run keys here, beside Experiment, and the runtime's from runtime_keys(). One
// table reads an experiment, writes its run.yaml, vets --set paths and prints the reference in
// docs/experiments.md (`dlsim list keys`).
#pragma once

#include "sim/cli/experiment.h"
#include "sim/config/config_key.h"

#include <vector>

namespace dlsim {

// The table bound to `e`'s fields, in run.yaml's order.
std::vector<ConfigKey> experiment_keys(Experiment& e);

} // namespace dlsim
