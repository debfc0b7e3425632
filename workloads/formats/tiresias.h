// The job CSV of the Tiresias simulator (SymbioticLab/Tiresias simulator/60_job.csv): job_id,
// num_gpu, submit_time, iterations, model_name, duration, interval (docs/traces.md#tiresias).
#pragma once

#include "workloads/trace.h"

#include <string>
#include <string_view>

namespace dlsim {

Trace read_tiresias_trace(const std::string& file, const ReadOptions& options);

// The dlsim zoo model for a Tiresias model name: "" when the zoo has no such model, the name
// itself when Tiresias does not know it either (a user's own file may name zoo models).
std::string_view tiresias_model_to_zoo(std::string_view name);

} // namespace dlsim
