// The runtime's keys of an experiment (costs.*, runtime.*, network.*), declared once beside
// RuntimeConfig: path, type, check and meaning of each, bound to its field. The defaults are the
// fields' initial values in runtime_config.h (with their sources); the models are in
// docs/runtime.md and docs/network.md.
//
// To add a runtime key: give RuntimeConfig the field and its default, add one entry to
// runtime_keys() where run.yaml should list it, and paste `dlsim list keys` into
// docs/experiments.md (a test checks the page).
#pragma once

#include "sim/config/config_key.h"
#include "sim/runtime/runtime_config.h"

#include <vector>

namespace dlsim {

std::vector<ConfigKey> runtime_keys(RuntimeConfig& c);

} // namespace dlsim
