// gpu-hours: a job list with its times in hours, one job a row under a header line naming the
// columns name, arrival_h, gpus and run_h. A job of more than 8 GPUs becomes workers of at most
// 8 each (gpu_shape.h). Every job counts as completed.
#include "workloads/formats/csv_rows.h"
#include "workloads/formats/gpu_shape.h"
#include "workloads/formats/registry.h"
#include "workloads/formats/trace_fields.h"

#include <unordered_set>

namespace dlsim {

namespace {

constexpr std::array<const char*, 4> kColumns = {"name", "arrival_h", "gpus", "run_h"};

// A time in hours as seconds, in the range every reader allows (trace_limits.h).
double hours_as_seconds(const char* text) {
  auto hours = parse_double_field(text);
  if (!hours) throw FieldError{"missing value: expected a time in hours"};
  return checked_seconds(*hours * 3600);
}

Trace read_gpu_hours_trace(const std::string& file, const ReadOptions& options) {
  Trace trace;
  trace.file = file;
  auto header = read_csv_header(file);
  check_csv_header(trace, header, kColumns, kColumns, "gpu-hours");
  std::unordered_set<std::string> seen;
  for_each_csv_row(file, kColumns, header.size(), trace, options, [&](auto& f, CsvRow& row) {
    TraceJob job;
    job.line = row.line;
    row.column = "name";
    const std::string name = required_job_id(f[0], seen);
    row.column = "arrival_h";
    job.submit_s = hours_as_seconds(f[1]);
    row.column = "gpus";
    const GpuShape shape = shape_for_gpus(static_cast<std::uint32_t>(required_gpu_count(f[2], 1)));
    job.workers = shape.workers;
    job.devices_per_worker = shape.devices_per_worker;
    row.column = "run_h";
    job.duration_s = hours_as_seconds(f[3]);
    seen.insert(name); // only once the whole row is good
    trace.add(job, name);
  });
  finish_trace(trace, 0);
  return trace;
}

} // namespace

TraceFormat gpu_hours_format() {
  return {"gpu-hours", "A job list in hours: name, arrival_h, gpus, run_h", &read_gpu_hours_trace};
}

} // namespace dlsim
