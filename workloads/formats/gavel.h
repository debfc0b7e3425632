// The `.trace` files of Gavel (stanford-futuredata/gavel scheduler/traces/; Narayanan et al.,
// OSDI'20) and of Shockwave (uw-mad-dash/shockwave scheduler/traces/; Zheng et al., NSDI'23):
// one job a line, tab-separated, no header, in one of three forms
// (docs/traces.md#gavel-and-shockwave---format-gavel):
//   7 fields (Gavel's msr/ traces): job_type, command, num_steps_arg, needs_data_dir,
//     total_steps, arrival_time, scale_factor;
//   10 fields (Gavel's parse_trace): job_type, command, working_directory, num_steps_arg,
//     needs_data_dir, total_steps, scale_factor, priority_weight, SLO, arrival_time;
//   12 fields (Shockwave's parse_trace): the 10 with mode after scale_factor and duration
//     before arrival_time.
#pragma once

#include "workloads/trace.h"

#include <optional>
#include <string>
#include <string_view>

namespace dlsim {

Trace read_gavel_trace(const std::string& file, const ReadOptions& options);

// The model name of a Gavel job type, as configs/models/gavel.yaml names Gavel's 26 types:
// "ResNet-18 (batch size 16)" -> "gavel_resnet18_bs16", "A3C" -> "gavel_a3c" (the name's
// letters and digits, lower case). nullopt for a text of neither form "Name" nor
// "Name (batch size N)".
std::optional<std::string> gavel_job_type_model(std::string_view job_type);

} // namespace dlsim
