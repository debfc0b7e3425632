// The raw Microsoft Philly job log (msr-fiddle/philly-traces, `cluster_job_log`): a JSON array
// of jobs with their scheduling attempts (docs/traces.md#philly).
#pragma once

#include "workloads/trace.h"

#include <string>

namespace dlsim {

Trace read_philly_json_trace(const std::string& file, const ReadOptions& options);

} // namespace dlsim
