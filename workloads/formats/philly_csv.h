// The Philly trace as flattened by Pollux (petuum/adaptdl simulator/traces/philly.csv):
// timestamp, duration, num_gpus, gpu_time, cluster (docs/traces.md#philly-csv).
#pragma once

#include "workloads/trace.h"

#include <string>

namespace dlsim {

Trace read_philly_csv_trace(const std::string& file, const ReadOptions& options);

} // namespace dlsim
