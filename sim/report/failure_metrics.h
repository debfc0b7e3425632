// jobs.csv's extra columns of a run with failures or checkpoints (docs/failures.md#measures),
// written only then, so that other runs keep their bytes; summary.json's `failures` object is
// the summary metric of metrics/failures.cpp.
#pragma once

#include "sim/engine/time.h"
#include "sim/report/seconds_text.h"
#include "sim/runtime/sim_state.h"

#include <cstdint>

namespace dlsim {

// The header's extra columns, and one row's: failures, lost_s, checkpoints, checkpoint_s,
// restart_s.
inline constexpr const char* kFailureColumns =
    ",failures,lost_s,checkpoints,checkpoint_s,restart_s";
inline constexpr std::size_t kFailureColumnsChars = 5 * kMaxNumberChars + 5;
char* write_failure_columns(char* p, const JobFailures& f);

} // namespace dlsim
