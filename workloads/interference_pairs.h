// Measured co-location slowdowns of model pairs (`runtime.interference.pairs`,
// docs/runtime.md#measured-pairs): a CSV file of device_type, model, with, slowdown, resolved to
// the run's device-type and model ids.
#pragma once

#include "sim/cluster/device_catalog.h"
#include "sim/runtime/runtime_config.h"
#include "workloads/model_zoo.h"

#include <string>
#include <vector>

namespace dlsim {

// Reads `file`. Every row must name a device type of `types`, two models of `zoo` (by key or by
// a model's `measured_as`) and a slowdown > 0; a pair given twice for one type is an error. Rows
// whose models the run does not use (not in `run_models`, Workload::models) are read and checked
// but not kept. With `strict` false (the bundled measurement set, read by default), a row naming
// a model the zoo does not know is skipped instead of refused. Errors name file:line.
InterferencePairs load_interference_pairs(const std::string& file,
                                          const std::vector<DeviceType>& types, const ModelZoo& zoo,
                                          const std::vector<std::string>& run_models,
                                          bool strict = true);

} // namespace dlsim
