// Reads Pollux's CSV flattening of the Microsoft Philly trace. One row is one job: its submit
// time, its observed run time, its GPU count and its virtual cluster. The file has no job id,
// user, model or status, so jobs are named by row and count as completed.
#include "workloads/formats/philly_csv.h"
#include "workloads/formats/registry.h"

#include "workloads/formats/csv_rows.h"
#include "workloads/formats/datetime_field.h"
#include "workloads/formats/gpu_shape.h"
#include "workloads/formats/trace_fields.h"

#include <cmath>

namespace dlsim {

namespace {

constexpr std::array<const char*, 5> kColumns = {"timestamp", "duration", "num_gpus", "gpu_time",
                                                 "cluster"};
constexpr std::array<const char*, 3> kRequired = {"timestamp", "duration", "num_gpus"};

} // namespace

Trace read_philly_csv_trace(const std::string& file, const ReadOptions& options) {
  Trace trace;
  trace.file = file;
  auto header = read_csv_header(file);
  check_csv_header(trace, header, kColumns, kRequired, "philly-csv");
  std::size_t row_index = 0;
  std::size_t not_run = 0;
  for_each_csv_row(file, kColumns, header.size(), trace, options, [&](auto& f, CsvRow& row) {
    TraceJob job;
    job.line = row.line;
    // Named by position among the data rows (job0 is the row on line 2), counted before any
    // check so that a skipped row does not rename the rest.
    const std::string name = fmt::format("job{}", row_index++);
    row.column = "timestamp";
    job.submit_s = static_cast<double>(datetime_field(f[0]));
    row.column = "duration";
    double duration = required_run_time_s(f[1]);
    row.column = "num_gpus";
    auto gpus = required_gpu_count(f[2], 1);
    row.column = "gpu_time";
    if (auto gpu_time = parse_double_field(f[3])) {
      double expected = duration * static_cast<double>(gpus);
      if (std::fabs(*gpu_time - expected) > 1e-6 * std::max(1.0, expected)) {
        throw FieldError{
            fmt::format("expected duration x num_gpus = {}, got {}", expected, *gpu_time)};
      }
    }
    if (duration == 0) { // never ran: nothing to replay
      ++not_run;
      return;
    }
    job.duration_s = duration;
    GpuShape shape = shape_for_gpus(static_cast<std::uint32_t>(gpus));
    job.workers = shape.workers;
    job.devices_per_worker = shape.devices_per_worker;
    if (f[4] != nullptr) job.queue = trace.queues.intern(f[4]);
    trace.add(job, name);
  });
  finish_trace(trace, not_run);
  return trace;
}

// The format's entry in the list of workloads/formats/format_list.h.
TraceFormat philly_csv_format() {
  return {"philly-csv",
          "Philly as flattened by Pollux: timestamp, duration, num_gpus, gpu_time, cluster",
          &read_philly_csv_trace};
}

} // namespace dlsim
