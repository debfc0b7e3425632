// Reads a Helios `cluster_log.csv`. Columns as the HeliosData README defines them: job_id,
// user, vc, gpu_num, cpu_num, node_num, state, submit_time, start_time, end_time, duration (s,
// end - start), queue (s, start - submit). CPU-only jobs (gpu_num 0) and jobs that never ran
// (duration 0) are counted and left out: dlsim replays GPU work.
#include "workloads/formats/helios.h"
#include "workloads/formats/registry.h"

#include "workloads/formats/csv_rows.h"
#include "workloads/formats/datetime_field.h"
#include "workloads/formats/gpu_shape.h"
#include "workloads/formats/trace_fields.h"
#include "workloads/formats/trace_limits.h"

#include <optional>
#include <unordered_set>

namespace dlsim {

namespace {

constexpr std::array<const char*, 12> kColumns = {
    "job_id", "user",        "vc",         "gpu_num",  "cpu_num",  "node_num",
    "state",  "submit_time", "start_time", "end_time", "duration", "queue"};
constexpr std::array<const char*, 7> kRequired = {"job_id", "vc",          "gpu_num", "node_num",
                                                  "state",  "submit_time", "duration"};

// Slurm end states as the HeliosData README lists them. TIMEOUT and NODE_FAIL "are regarded as
// failed" there; SUSPENDED occurs once (Uranus) and is counted as failed too.
std::optional<std::uint8_t> status_of(std::string_view state) {
  if (state == "COMPLETED") return 0;
  if (state == "FAILED" || state == "TIMEOUT" || state == "NODE_FAIL" || state == "SUSPENDED")
    return 1;
  if (state == "CANCELLED") return 2;
  return std::nullopt;
}

std::optional<std::int64_t> optional_time(const char* text) {
  if (text == nullptr || *text == '\0' || std::string_view(text) == "None") return std::nullopt;
  return datetime_field(text);
}

std::uint8_t required_status(const char* text) {
  if (empty_field(text))
    throw FieldError{"missing value: expected COMPLETED, CANCELLED, FAILED, TIMEOUT or NODE_FAIL"};
  auto status = status_of(text);
  if (!status) {
    throw FieldError{
        fmt::format("expected COMPLETED, CANCELLED, FAILED, TIMEOUT or NODE_FAIL, got '{}'", text)};
  }
  return *status;
}

// Checks that submit, start and end time go forwards; returns the submit time.
template <class Cells>
std::int64_t read_times(const Cells& f, CsvRow& row) {
  row.column = "submit_time";
  std::int64_t submit = datetime_field(f[7]);
  row.column = "start_time";
  auto start = optional_time(f[8]);
  if (start && *start < submit) {
    throw FieldError{fmt::format("time goes backwards: starts {} before its submit_time {}",
                                 format_datetime(*start), format_datetime(submit))};
  }
  row.column = "end_time";
  auto end = optional_time(f[9]);
  if (end && start && *end < *start) {
    throw FieldError{fmt::format("time goes backwards: ends {} before its start_time {}",
                                 format_datetime(*end), format_datetime(*start))};
  }
  return submit;
}

} // namespace

Trace read_helios_trace(const std::string& file, const ReadOptions& options) {
  Trace trace;
  trace.file = file;
  auto header = read_csv_header(file);
  check_csv_header(trace, header, kColumns, kRequired, "helios");
  std::unordered_set<std::string> seen_ids;
  std::size_t cpu_only = 0, not_run = 0;
  for_each_csv_row(file, kColumns, header.size(), trace, options, [&](auto& f, CsvRow& row) {
    TraceJob job;
    job.line = row.line;
    row.column = "job_id";
    const std::string job_id = required_job_id(f[0], seen_ids);
    row.column = "gpu_num";
    auto gpus = required_gpu_count(f[3], 0);
    row.column = "cpu_num";
    auto cpus = optional_non_negative(f[4]);
    row.column = "node_num";
    auto nodes = parse_int_field(f[5]);
    if (!nodes) throw FieldError{"missing value: expected the number of nodes"};
    if (*nodes < 0 || *nodes > kMaxTraceGpus)
      throw FieldError{fmt::format("expected 0 to {} nodes, got {}", kMaxTraceGpus, *nodes)};
    row.column = "state";
    std::uint8_t status = required_status(f[6]);
    std::int64_t submit = read_times(f, row);
    row.column = "duration";
    double duration = required_run_time_s(f[10]);
    row.column = "queue";
    optional_non_negative(f[11]);
    // The row is good.
    seen_ids.insert(job_id);
    if (gpus == 0) {
      ++cpu_only;
      return;
    }
    if (duration == 0) {
      ++not_run;
      return;
    }
    job.submit_s = static_cast<double>(submit);
    job.duration_s = duration;
    job.trace_status = status;
    auto g = static_cast<std::uint32_t>(gpus);
    auto n = static_cast<std::uint32_t>(*nodes);
    GpuShape shape = n >= 1 && g % n == 0 ? GpuShape{n, g / n} : shape_for_gpus(g);
    job.workers = shape.workers;
    job.devices_per_worker = shape.devices_per_worker;
    job.cpus_per_worker = cpus.value_or(0) / shape.workers;
    if (f[1] != nullptr) job.user = trace.users.intern(f[1]);
    if (f[2] != nullptr) job.queue = trace.queues.intern(f[2]);
    trace.add(job, job_id);
  });
  if (cpu_only > 0 || not_run > 0) {
    trace.warnings.push_back(fmt::format(
        "{}: not replayed: {} CPU-only jobs (gpu_num 0) and {} GPU jobs with a duration of 0 s",
        file, cpu_only, not_run));
  }
  if (trace.jobs.empty() && trace.skipped == 0)
    throw InputError(file + ": the trace has no GPU jobs to replay");
  return trace;
}

// The format's entry in the list of workloads/formats/format_list.h.
TraceFormat helios_format() {
  return {"helios",
          "SenseTime Helios cluster_log.csv: job_id, user, vc, gpu_num, node_num, state, times",
          &read_helios_trace};
}

} // namespace dlsim
