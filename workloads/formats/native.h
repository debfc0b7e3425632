// dlsim's native trace format: CSV with a header (docs/traces.md).
#pragma once

#include "workloads/trace.h"

#include <string>

namespace dlsim {

Trace read_native_trace(const std::string& file, const ReadOptions& options);

} // namespace dlsim
