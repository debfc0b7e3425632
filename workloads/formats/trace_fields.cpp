#include "workloads/formats/trace_fields.h"

#include "workloads/formats/trace_limits.h"

#include <fmt/format.h>

namespace dlsim {

std::string required_job_id(const char* text, const std::unordered_set<std::string>& seen) {
  if (empty_field(text)) throw FieldError{"missing value: expected a job id"};
  std::string id = text;
  if (seen.count(id)) throw FieldError{fmt::format("duplicate job id '{}'", id)};
  return id;
}

std::int64_t required_gpu_count(const char* text, std::int64_t min) {
  auto gpus = parse_int_field(text);
  if (!gpus) throw FieldError{"missing value: expected the number of GPUs"};
  if (*gpus < min || *gpus > kMaxTraceGpus)
    throw FieldError{fmt::format("expected {} to {} GPUs, got {}", min, kMaxTraceGpus, *gpus)};
  return *gpus;
}

double required_run_time_s(const char* text) {
  auto duration = parse_double_field(text);
  if (!duration) throw FieldError{"missing value: expected the run time in seconds"};
  if (*duration < 0 || *duration > kMaxTraceSeconds) {
    throw FieldError{
        fmt::format("expected a run time from 0 to {:g} s, got {}", kMaxTraceSeconds, *duration)};
  }
  return *duration;
}

double required_time_s(const char* text, const char* what) {
  auto t = parse_double_field(text);
  if (!t) throw FieldError{fmt::format("missing value: expected {} in seconds", what)};
  if (*t < 0 || *t > kMaxTraceSeconds)
    throw FieldError{fmt::format("expected a time from 0 to {:g} s, got {}", kMaxTraceSeconds, *t)};
  return *t;
}

double checked_seconds(double v) {
  if (v < 0) throw FieldError{fmt::format("must not be negative, got {}", v)};
  if (v > kMaxTraceSeconds)
    throw FieldError{fmt::format("must be at most {} s, got {}", kMaxTraceSeconds, v)};
  return v;
}

std::optional<double> optional_non_negative(const char* text) {
  auto v = parse_double_field(text);
  if (v && *v < 0) throw FieldError{fmt::format("must not be negative, got {}", *v)};
  return v;
}

std::int64_t required_non_negative_int(const char* text) {
  auto v = parse_int_field(text);
  if (!v) throw FieldError{"missing value"};
  if (*v < 0) throw FieldError{fmt::format("must not be negative, got {}", *v)};
  return *v;
}

} // namespace dlsim
