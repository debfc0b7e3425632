// Pollux's workloads (petuum/adaptdl osdi21-artifact simulator/workloads*/; Qiao et al.,
// "Pollux: Co-adaptive Cluster Scheduling for Goodput-Optimized Deep Learning", OSDI'21):
// name, time, application, num_replicas, batch_size, and no run time. The run time of each job
// at its recorded replicas and batch size comes from the application's profile
// (pollux_profile.h; docs/traces.md#pollux---format-pollux).
#pragma once

#include "workloads/trace.h"

#include <string>
#include <string_view>

namespace dlsim {

Trace read_pollux_trace(const std::string& file, const ReadOptions& options);

// The zoo model of a Pollux application, the name itself for an application Pollux does not have
// (a user's own profile may be named after a zoo model).
std::string_view pollux_application_to_zoo(std::string_view application);

} // namespace dlsim
