// Reads the Tiresias simulator's job list. The file is in submission order (its `interval`
// column is the gap to the next job), so a submit time that goes backwards is an error.
#include "workloads/formats/tiresias.h"
#include "workloads/formats/registry.h"

#include "workloads/formats/csv_rows.h"
#include "workloads/formats/gpu_shape.h"
#include "workloads/formats/trace_fields.h"
#include "workloads/formats/trace_limits.h"

#include <map>
#include <set>
#include <unordered_set>

namespace dlsim {

namespace {

constexpr std::array<const char*, 7> kColumns = {
    "job_id", "num_gpu", "submit_time", "iterations", "model_name", "duration", "interval"};
constexpr std::array<const char*, 4> kRequired = {"job_id", "num_gpu", "submit_time", "duration"};

struct ModelAlias {
  const char* tiresias;
  const char* zoo; // "" = no zoo model
};

// The model names of Tiresias' simulator/models.py (m_names) and googlenet (in 60_job.csv;
// Tiresias itself falls back to inception3 for it). Only the same network maps to a zoo model:
// inception3 is Inception-v3 (the zoo's inception_v3). The others have no counterpart in
// configs/models/zoo.yaml and stay model-less (trace.assign_models can draw one).
constexpr std::array<ModelAlias, 10> kModels = {{{"vgg19", ""},
                                                 {"vgg16", "vgg16"},
                                                 {"vgg11", ""},
                                                 {"alexnet", ""},
                                                 {"resnet152", ""},
                                                 {"resnet101", ""},
                                                 {"resnet50", "resnet50"},
                                                 {"inception4", ""},
                                                 {"inception3", "inception_v3"},
                                                 {"googlenet", ""}}};

// A time read as seconds; a value only milliseconds make sense of (over kMaxTraceSeconds, 31.7
// years) gets a hint, since Muri's lists have the same columns with times in ms.
template <class Read>
double seconds_with_unit_hint(const char* text, Read read) {
  try {
    return read(text);
  } catch (FieldError& e) {
    std::optional<double> v;
    try {
      v = parse_double_field(text);
    } catch (const FieldError&) {
    }
    if (v && *v > kMaxTraceSeconds) {
      e.what += " (so large a time makes sense only in milliseconds, as Muri's lists give "
                "them: give --format muri)";
    }
    throw;
  }
}

// Muri's lists are the tiresias CSV plus iteration_time and resource_time_0..2, with times in
// milliseconds: read as seconds, every time would be 1000 times too long.
void check_not_muri(const std::string& file, const std::vector<std::string>& header) {
  if (has_column(header, "iteration_time") || has_column(header, "resource_time_0")) {
    throw InputError(fmt::format("{}:1: iteration_time: the header has the columns of a Muri job "
                                 "list, whose times are in milliseconds, not the tiresias "
                                 "format's seconds: give --format muri",
                                 file));
  }
}

} // namespace

std::string_view tiresias_model_to_zoo(std::string_view name) {
  for (const auto& m : kModels) {
    if (name == m.tiresias) return m.zoo;
  }
  return name;
}

Trace read_tiresias_trace(const std::string& file, const ReadOptions& options) {
  Trace trace;
  trace.file = file;
  auto header = read_csv_header(file);
  check_not_muri(file, header);
  check_csv_header(trace, header, kColumns, kRequired, "tiresias");
  std::unordered_set<std::string> seen_ids;
  std::map<std::string, std::size_t> unmapped; // Tiresias model -> jobs left model-less (sorted)
  double last_submit = 0;
  unsigned last_line = 0;
  std::size_t not_run = 0;
  for_each_csv_row(file, kColumns, header.size(), trace, options, [&](auto& f, CsvRow& row) {
    TraceJob job;
    job.line = row.line;
    row.column = "job_id";
    const std::string job_id = required_job_id(f[0], seen_ids);
    row.column = "num_gpu";
    auto gpus = required_gpu_count(f[1], 1);
    row.column = "submit_time";
    double submit = seconds_with_unit_hint(
        f[2], [](const char* t) { return required_time_s(t, "the submit time"); });
    if (last_line != 0 && submit < last_submit) {
      throw FieldError{fmt::format("time goes backwards: {} s after {} s on line {} (the format "
                                   "lists jobs in submission order)",
                                   submit, last_submit, last_line)};
    }
    row.column = "iterations";
    optional_non_negative(f[3]);
    row.column = "duration";
    double duration = seconds_with_unit_hint(f[5], required_run_time_s);
    row.column = "interval";
    optional_non_negative(f[6]);
    // The row is good: from here on nothing throws.
    seen_ids.insert(job_id);
    last_submit = submit;
    last_line = row.line;
    if (duration == 0) {
      ++not_run;
      return;
    }
    job.submit_s = submit;
    job.duration_s = duration;
    GpuShape shape = shape_for_gpus(static_cast<std::uint32_t>(gpus));
    job.workers = shape.workers;
    job.devices_per_worker = shape.devices_per_worker;
    if (f[4] != nullptr && *f[4] != '\0') {
      std::string_view zoo = tiresias_model_to_zoo(f[4]);
      if (zoo.empty())
        ++unmapped[f[4]];
      else
        job.model = trace.models.intern(zoo);
    }
    trace.add(job, job_id);
  });
  if (!unmapped.empty()) {
    std::vector<std::string> parts;
    std::size_t jobs = 0;
    for (const auto& [name, n] : unmapped) {
      parts.push_back(fmt::format("{} ({})", name, n));
      jobs += n;
    }
    trace.warnings.push_back(fmt::format("{}: {} jobs have a model the zoo lacks and run "
                                         "model-less (set trace.assign_models to draw one): {}",
                                         file, jobs, fmt::join(parts, ", ")));
  }
  finish_trace(trace, not_run);
  return trace;
}

// The format's entry in the list of workloads/formats/format_list.h.
TraceFormat tiresias_format() {
  return {"tiresias",
          "Tiresias simulator CSV: job_id, num_gpu, submit_time, iterations, model_name, duration",
          &read_tiresias_trace};
}

} // namespace dlsim
