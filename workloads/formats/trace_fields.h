// The field checks the trace readers share: a job id, a GPU count, a run time, a time in
// seconds. Each throws FieldError with what was expected, for the row loop to put at
// file:line: column.
#pragma once

#include "workloads/formats/field_parse.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>

namespace dlsim {

// A non-empty job id ("missing value: expected a job id") not in `seen` (the caller inserts it
// once the whole row is good, so that a skipped row does not claim its id).
std::string required_job_id(const char* text, const std::unordered_set<std::string>& seen);

// A GPU count from `min` to kMaxTraceGpus.
std::int64_t required_gpu_count(const char* text, std::int64_t min);

// A run time from 0 to kMaxTraceSeconds.
double required_run_time_s(const char* text);

// A time from 0 to kMaxTraceSeconds; `what` names it in the missing-value message ("the submit
// time").
double required_time_s(const char* text, const char* what);

// v itself when it is from 0 to kMaxTraceSeconds: such times stay exact in SimTime
// (trace_limits.h).
double checked_seconds(double v);

// A count >= 0, or nullopt when empty.
std::optional<double> optional_non_negative(const char* text);

// An integer >= 0 that must be there.
std::int64_t required_non_negative_int(const char* text);

inline bool empty_field(const char* text) {
  return text == nullptr || *text == '\0';
}

} // namespace dlsim
