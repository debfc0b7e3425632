// Reads a Muri job list. Times are milliseconds: submit_time and duration become seconds here.
// iteration_time and resource_time_0..2 (the milliseconds one iteration spends on each
// resource, which Muri interleaves) are checked but not replayed: dlsim has no multi-resource
// interleaving model, so a job runs its recorded duration (docs/traces.md#muri).
#include "workloads/formats/muri.h"
#include "workloads/formats/registry.h"

#include "workloads/formats/csv_rows.h"
#include "workloads/formats/gpu_shape.h"
#include "workloads/formats/tiresias.h"
#include "workloads/formats/trace_fields.h"
#include "workloads/formats/trace_limits.h"

#include <map>
#include <unordered_set>

namespace dlsim {

namespace {

constexpr std::array<const char*, 13> kColumns = {
    "job_id",          "num_gpu",         "submit_time", "iterations",     "model_name",
    "batch_size",      "duration",        "interval",    "iteration_time", "resource_time_0",
    "resource_time_1", "resource_time_2", "priority"};
enum Col {
  kId,
  kGpus,
  kSubmit,
  kIterations,
  kModel,
  kBatch,
  kDuration,
  kInterval,
  kIterationTime,
  kResource0,
  kResource1,
  kResource2,
  kPriority
};
constexpr std::array<const char*, 5> kRequired = {"job_id", "num_gpu", "submit_time", "duration",
                                                  "iteration_time"};
using Cells = std::array<char*, kColumns.size()>;

// A time in milliseconds, as seconds (at most kMaxTraceSeconds).
double required_ms(const char* text, const char* what) {
  auto ms = parse_double_field(text);
  if (!ms) throw FieldError{fmt::format("missing value: expected {} in milliseconds", what)};
  if (*ms < 0 || *ms > kMaxTraceSeconds * 1000) {
    throw FieldError{
        fmt::format("expected {} from 0 to {:g} ms, got {}", what, kMaxTraceSeconds * 1000, *ms)};
  }
  return *ms / 1000;
}

// The columns Muri's simulator reads and dlsim only checks.
void check_muri_only(const Cells& f, CsvRow& row) {
  for (int c :
       {kIterations, kBatch, kInterval, kIterationTime, kResource0, kResource1, kResource2}) {
    row.column = kColumns[c];
    optional_non_negative(f[c]);
  }
}

} // namespace

std::string_view muri_model_to_zoo(std::string_view name) {
  if (name == "bert") return "bert_base";
  return tiresias_model_to_zoo(name);
}

Trace read_muri_trace(const std::string& file, const ReadOptions& options) {
  Trace trace;
  trace.file = file;
  auto header = read_csv_header(file);
  check_csv_header(trace, header, kColumns, kRequired, "muri");
  std::unordered_set<std::string> seen_ids;
  std::map<std::string, std::size_t> model_less; // Muri model -> jobs without a zoo model
  std::size_t not_run = 0;
  for_each_csv_row(file, kColumns, header.size(), trace, options, [&](const Cells& f, CsvRow& row) {
    TraceJob job;
    job.line = row.line;
    row.column = "job_id";
    const std::string job_id = required_job_id(f[kId], seen_ids);
    row.column = "num_gpu";
    auto gpus = required_gpu_count(f[kGpus], 1);
    row.column = "submit_time";
    job.submit_s = required_ms(f[kSubmit], "the submit time");
    row.column = "duration";
    job.duration_s = required_ms(f[kDuration], "the run time");
    check_muri_only(f, row);
    row.column = "priority";
    job.priority = static_cast<int>(parse_int_field(f[kPriority]).value_or(0));
    // The row is good: from here on nothing throws.
    seen_ids.insert(job_id);
    if (job.duration_s == 0) return void(++not_run);
    GpuShape shape = shape_for_gpus(static_cast<std::uint32_t>(gpus));
    job.workers = shape.workers;
    job.devices_per_worker = shape.devices_per_worker;
    if (!empty_field(f[kModel])) {
      std::string_view zoo = muri_model_to_zoo(f[kModel]);
      if (zoo.empty())
        ++model_less[f[kModel]];
      else
        job.model = trace.models.intern(zoo);
    }
    trace.add(job, job_id);
  });
  if (!model_less.empty()) {
    std::vector<std::string> parts;
    parts.reserve(model_less.size());
    for (const auto& [name, n] : model_less)
      parts.push_back(fmt::format("{} ({})", name, n));
    trace.warnings.push_back(fmt::format("{}: jobs whose model Tiresias' list names but the zoo "
                                         "lacks run model-less: {}",
                                         file, fmt::join(parts, ", ")));
  }
  finish_trace(trace, not_run);
  return trace;
}

// The format's entry in the list of workloads/formats/format_list.h.
TraceFormat muri_format() {
  return {"muri",
          "Muri simulator CSV: the tiresias columns plus iteration_time, resource_time_0..2, "
          "priority; times in ms",
          &read_muri_trace};
}

} // namespace dlsim
