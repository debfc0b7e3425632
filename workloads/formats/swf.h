// The Standard Workload Format (SWF v2.2) of the Parallel Workloads Archive, plain or gzipped
// (docs/traces.md#swf).
#pragma once

#include "workloads/trace.h"

#include <string>

namespace dlsim {

Trace read_swf_trace(const std::string& file, const ReadOptions& options);

} // namespace dlsim
