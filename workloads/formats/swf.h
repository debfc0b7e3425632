// The Standard Workload Format (SWF v2.2) of the Parallel Workloads Archive, plain or gzipped
// (docs/traces.md#swf).
#pragma once

#include "sim/config/config_key.h"
#include "workloads/trace.h"

#include <string>
#include <vector>

namespace dlsim {

Trace read_swf_trace(const std::string& file, const ReadOptions& options);
// trace.swf_devices and trace.swf_procs_per_device, bound to `options`.
std::vector<ConfigKey> swf_keys(ReadOptions& options);

} // namespace dlsim
