// A failure log (docs/failures.md#a-failure-log): a CSV of time_s,component,duration_s that a
// run replays instead of drawing failures, so that two policies meet the same failures. A run
// with drawn failures writes its own as failures.csv in the same form.
#pragma once

#include "sim/cluster/cluster.h"
#include "sim/runtime/failure_config.h"

#include <ostream>
#include <string>
#include <vector>

namespace dlsim {

// The rows in order. InputError naming file:line and the column for a time that is negative or
// earlier than the row before, a component the cluster does not have ("device:D", "node:N",
// "link:N"), a negative duration, or a component that fails again before its repair.
std::vector<FailureRecord> load_failure_log(const std::string& file, const Cluster& cluster);

// The same form: what load_failure_log reads back exactly (times to the microsecond).
void write_failure_log(std::ostream& out, const Cluster& cluster,
                       const std::vector<FailureRecord>& records);

} // namespace dlsim
