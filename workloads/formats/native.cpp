// Reads the native CSV trace through the row loop of csv_row_loop.h. Every field is read as text
// and converted here, so that each error names the file, the line and the column.
#include "workloads/formats/native.h"
#include "workloads/formats/registry.h"

#include "workloads/formats/csv_rows.h"
#include "workloads/formats/loss_curve_field.h"
#include "workloads/formats/trace_fields.h"
#include "workloads/formats/trace_limits.h"
#include "workloads/formats/unique_ids.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>
#include <vector>

namespace dlsim {

namespace {

constexpr std::array<const char*, 24> kColumns = {
    "id",          "submit_s",   "workers",     "gpus_per_worker",      "duration_s",
    "iterations",  "model",      "ps",          "cpus_per_worker",      "mem_gb_per_worker",
    "user",        "queue",      "priority",    "min_workers",          "max_workers",
    "device_type", "gpu_util",   "requested_s", "gpu_share_min",        "gpu_share_max",
    "gpu_mem_gb",  "loss_curve", "ps_cpus",     "checkpoint_interval_s"};
enum Col {
  kId,
  kSubmit,
  kWorkers,
  kGpusPerWorker,
  kDuration,
  kIterations,
  kModel,
  kPs,
  kCpus,
  kMem,
  kUser,
  kQueue,
  kPriority,
  kMinWorkers,
  kMaxWorkers,
  kDeviceType,
  kGpuUtil,
  kRequested,
  kShareMin,
  kShareMax,
  kGpuMem,
  kLossCurve,
  kPsCpus,
  kCheckpointInterval
};
using Cells = std::array<char*, kColumns.size()>;

struct NativeHeader {
  std::size_t fields = 0;
  bool has_duration = false;
  // " (note: unknown columns ignored: ...)": a misspelt column is a likely cause of an error, and
  // the run stops before the warning about unknown columns would be printed.
  std::string unknown_note;
};

NativeHeader check_native_header(Trace& trace) {
  const std::string& file = trace.file;
  auto header = read_csv_header(file);
  if (header.empty()) throw InputError(file + ": empty file: expected a CSV header line");
  std::vector<std::string> unknown;
  for (const auto& h : header) {
    if (std::none_of(kColumns.begin(), kColumns.end(), [&](const char* c) { return h == c; }))
      unknown.push_back(h);
  }
  NativeHeader out;
  out.fields = header.size();
  if (!unknown.empty()) {
    trace.warnings.push_back(
        fmt::format("{}: ignoring unknown columns: {}", file, fmt::join(unknown, ", ")));
    out.unknown_note =
        fmt::format(" (note: unknown columns ignored: {})", fmt::join(unknown, ", "));
  }
  for (const char* required : {"id", "submit_s", "workers"}) {
    if (!has_column(header, required)) {
      throw InputError(fmt::format("{}:1: {}: required column missing from the header{}", file,
                                   required, out.unknown_note));
    }
  }
  out.has_duration = has_column(header, "duration_s");
  if (!out.has_duration && !has_column(header, "iterations") && !has_column(header, "loss_curve")) {
    throw InputError(fmt::format("{}:1: duration_s: the header needs duration_s or iterations{}",
                                 file, out.unknown_note));
  }
  return out;
}

void read_submit(const Cells& f, CsvRow& row, TraceJob& job) {
  row.column = "submit_s";
  double submit = 0;
  if (!double_field(f[kSubmit], submit)) throw FieldError{"missing value"};
  if (submit < 0) throw FieldError{fmt::format("must not be negative, got {}", submit)};
  if (submit > kMaxTraceSeconds)
    throw FieldError{fmt::format("must be at most {:g} s, got {}", kMaxTraceSeconds, submit)};
  job.submit_s = submit;
}

void read_shape(const Cells& f, CsvRow& row, TraceJob& job) {
  row.column = "workers";
  std::int64_t workers = 0;
  if (!int_field(f[kWorkers], workers)) throw FieldError{"missing value"};
  if (workers < 1) throw FieldError{fmt::format("must be at least 1, got {}", workers)};
  row.column = "gpus_per_worker";
  std::int64_t dpw = 1;
  int_field(f[kGpusPerWorker], dpw);
  if (dpw < 1) throw FieldError{fmt::format("must be at least 1, got {}", dpw)};
  if (workers > kMaxTraceGpus || dpw > kMaxTraceGpus || workers * dpw > kMaxTraceGpus) {
    row.column = "workers";
    throw FieldError{fmt::format("{} workers x {} devices is more than {} devices", workers, dpw,
                                 kMaxTraceGpus)};
  }
  job.workers = static_cast<std::uint32_t>(workers);
  job.devices_per_worker = static_cast<std::uint32_t>(dpw);
}

// A positive number up to `max` into `out`, and true; false when empty (`out` left alone).
bool optional_positive(const char* text, double max, const char* unit, double& out) {
  double v = 0;
  if (!double_field(text, v)) return false;
  if (!(v > 0)) throw FieldError{fmt::format("must be positive, got {}", v)};
  if (v > max) throw FieldError{fmt::format("must be at most {:g}{}, got {}", max, unit, v)};
  out = v;
  return true;
}

// duration_s or iterations (with a model), exactly one of them.
void read_work(const Cells& f, CsvRow& row, const NativeHeader& header, Trace& trace,
               TraceJob& job) {
  row.column = "duration_s";
  double duration = 0;
  const bool has_duration = optional_positive(f[kDuration], kMaxTraceSeconds, " s", duration);
  row.column = "iterations";
  double iterations = 0;
  bool has_iterations = optional_positive(f[kIterations], kMaxTraceIterations, "", iterations);
  if (!empty_field(f[kLossCurve])) {
    // A job that converges: its length is the iterations its curve needs (docs/aiturbo.md).
    if (has_duration || has_iterations)
      throw FieldError{fmt::format("give loss_curve or {}, not both",
                                   has_duration ? "duration_s" : "iterations")};
    row.column = "loss_curve";
    trace.curves.push_back(parse_loss_curve_field(f[kLossCurve]));
    job.curve = static_cast<std::uint32_t>(trace.curves.size());
    iterations = iterations_to_target(trace.curves.back());
    has_iterations = true;
  }
  if (!has_duration && !has_iterations) {
    row.column = header.has_duration ? "duration_s" : "iterations";
    throw FieldError{"the job needs duration_s or iterations"};
  }
  if (has_duration && has_iterations) throw FieldError{"give duration_s or iterations, not both"};
  job.duration_s = has_duration ? duration : -1;
  job.iterations = has_iterations ? iterations : -1;
  row.column = "model";
  if (!empty_field(f[kModel])) job.model = trace.models.intern(f[kModel]);
  if (has_iterations && job.model == kNoString)
    throw FieldError{job.curve != 0 ? "a job given by loss_curve needs a model"
                                    : "a job given by iterations needs a model"};
}

void read_host_resources(const Cells& f, CsvRow& row, TraceJob& job) {
  row.column = "ps";
  std::int64_t ps = 0;
  int_field(f[kPs], ps);
  if (ps < 0) throw FieldError{fmt::format("must not be negative, got {}", ps)};
  job.ps = static_cast<std::uint32_t>(ps);
  row.column = "ps_cpus"; // docs/scaling.md#cpu-cores-of-ps-and-workers
  std::int64_t ps_cpus = 0;
  int_field(f[kPsCpus], ps_cpus);
  if (ps_cpus < 0 || ps_cpus > 1024)
    throw FieldError{fmt::format("must be whole CPU cores from 0 to 1024, got {}", ps_cpus)};
  if (ps_cpus > 0 && ps == 0) throw FieldError{"a job without parameter servers (ps 0) has none"};
  job.ps_cpus = static_cast<std::uint16_t>(ps_cpus);
  row.column = "cpus_per_worker";
  double cpus = 0;
  double_field(f[kCpus], cpus);
  job.cpus_per_worker = cpus;
  if (job.cpus_per_worker < 0) throw FieldError{"must not be negative"};
  row.column = "mem_gb_per_worker";
  double mem = 0;
  double_field(f[kMem], mem);
  job.mem_gb_per_worker = mem;
  if (job.mem_gb_per_worker < 0) throw FieldError{"must not be negative"};
}

void read_elastic_range(const Cells& f, CsvRow& row, TraceJob& job) {
  row.column = "min_workers";
  std::int64_t min_w = job.workers;
  int_field(f[kMinWorkers], min_w);
  row.column = "max_workers";
  std::int64_t max_w = job.workers;
  int_field(f[kMaxWorkers], max_w);
  if (min_w < 1 || min_w > job.workers) {
    row.column = "min_workers";
    throw FieldError{fmt::format("must be between 1 and workers ({}), got {}", job.workers, min_w)};
  }
  if (max_w < job.workers)
    throw FieldError{fmt::format("must be at least workers ({}), got {}", job.workers, max_w)};
  job.min_workers = static_cast<std::uint32_t>(min_w);
  job.max_workers = static_cast<std::uint32_t>(max_w);
}

void read_placement_hints(const Cells& f, CsvRow& row, Trace& trace, TraceJob& job) {
  row.column = "device_type";
  if (!empty_field(f[kDeviceType])) job.device_type = trace.device_types.intern(f[kDeviceType]);
  row.column = "gpu_util";
  double util = 0;
  const bool has_util = double_field(f[kGpuUtil], util);
  if (has_util && (util <= 0 || util > 1))
    throw FieldError{fmt::format("must be in (0, 1], got {}", util)};
  job.gpu_util = has_util ? util : -1;
  row.column = "requested_s";
  double requested = 0;
  double_field(f[kRequested], requested);
  job.requested_s = requested;
  if (job.requested_s < 0) throw FieldError{"must not be negative"};
  // The job's own checkpoint interval (docs/failures.md#checkpoints); empty: the experiment's.
  row.column = "checkpoint_interval_s";
  double interval = -1;
  if (double_field(f[kCheckpointInterval], interval) && !(interval >= 0))
    throw FieldError{fmt::format("must be a time >= 0 s, got {}", interval)};
  job.checkpoint_interval_s = interval;
}

// A share of a device (docs/runtime.md#fractional-shares): 0 < min <= max <= 1, one device per
// worker. Only a min: the job may be granted up to a whole device; only a max: the min is the
// same. gpu_mem_gb replaces the zoo model's footprint.
void read_share(const Cells& f, CsvRow& row, TraceJob& job) {
  row.column = "gpu_share_min";
  double share_min = 0;
  const bool has_min = double_field(f[kShareMin], share_min);
  if (has_min && !(share_min > 0 && share_min <= 1))
    throw FieldError{fmt::format("must be in (0, 1], got {}", share_min)};
  row.column = "gpu_share_max";
  double share_max = 0;
  const bool has_max = double_field(f[kShareMax], share_max);
  if (has_max && !(share_max > 0 && share_max <= 1))
    throw FieldError{fmt::format("must be in (0, 1], got {}", share_max)};
  if (has_min && has_max && share_max < share_min) {
    throw FieldError{
        fmt::format("must be at least gpu_share_min ({}), got {}", share_min, share_max)};
  }
  if ((has_min || has_max) && job.devices_per_worker != 1) {
    row.column = has_min ? "gpu_share_min" : "gpu_share_max";
    throw FieldError{
        fmt::format("a share of a device needs gpus_per_worker 1, got {}", job.devices_per_worker)};
  }
  if (has_min) {
    job.gpu_share_min = share_min;
    job.gpu_share_max = has_max ? share_max : 1.0;
  } else if (has_max) {
    job.gpu_share_min = share_max;
    job.gpu_share_max = share_max;
  }
  row.column = "gpu_mem_gb";
  double gpu_mem = -1;
  optional_positive(f[kGpuMem], 1e6, " GB", gpu_mem);
  job.gpu_mem_gb = gpu_mem;
}

// How a read finds repeated ids. The exact check (a hash set of the ids, UniqueIds) makes a
// repeat its row's error, but each insert lands at a random place in a table of tens of MiB:
// it was most of reading's own time at a million jobs, and the table and its copy of every id
// about 120 MiB at 3.4 million. So a read first only keeps every id's 64-bit hash and compares
// them at the end; only when two are equal (a repeated id, or a collision, about 1 in 3 million
// at 3.4 million ids) is the file read again with the exact check, whose result and errors are
// then the read's.
struct IdCheck {
  UniqueIds* exact = nullptr;                   // the exact check, or
  std::vector<std::uint64_t>* hashes = nullptr; // every id's hash, compared at the end
};

TraceJob read_job(const Cells& f, CsvRow& row, const NativeHeader& header, Trace& trace,
                  const IdCheck& ids) {
  TraceJob job;
  job.line = row.line;
  row.column = "id";
  if (empty_field(f[kId])) throw FieldError{"empty job id"};
  const std::string_view id = f[kId];
  if (ids.exact == nullptr) {
    ids.hashes->push_back(UniqueIds::hash(id));
  } else if (!ids.exact->insert(id)) {
    throw FieldError{fmt::format("duplicate job id '{}'", id)};
  }
  read_submit(f, row, job);
  read_shape(f, row, job);
  read_work(f, row, header, trace, job);
  read_host_resources(f, row, job);
  row.column = "user";
  if (f[kUser] != nullptr) job.user = trace.users.intern(f[kUser]);
  row.column = "queue";
  if (f[kQueue] != nullptr) job.queue = trace.queues.intern(f[kQueue]);
  row.column = "priority";
  std::int64_t priority = 0;
  int_field(f[kPriority], priority);
  job.priority = static_cast<int>(priority);
  read_elastic_range(f, row, job);
  read_placement_hints(f, row, trace, job);
  read_share(f, row, job);
  return job;
}

// Reads the trace with the exact id check, or with the hashes only (`exact` false), in which
// case nullopt says that two ids may be the same (the read must be made again, exactly). An
// error thrown by a read with hashes only is the read's error only when no earlier id repeats.
std::optional<Trace> read_native(const std::string& file, const ReadOptions& options, bool exact) {
  Trace trace;
  trace.file = file;
  const NativeHeader header = check_native_header(trace);
  UniqueIds seen_ids;
  std::vector<std::uint64_t> id_hashes;
  const IdCheck ids = exact ? IdCheck{&seen_ids, nullptr} : IdCheck{nullptr, &id_hashes};
  // A row takes at least about 24 bytes in practice (the generator's take 33): reserving for
  // that many avoids copying every job on each doubling. Pages past the last row are never
  // touched, so an over-estimate costs address space, not memory.
  std::error_code size_error;
  const auto bytes = std::filesystem::file_size(file, size_error);
  if (!size_error) {
    trace.jobs.reserve(static_cast<std::size_t>(bytes / 24));
    // Ids are a part of their rows: a quarter of the file holds the generator's (`job123`).
    trace.names.reserve(static_cast<std::size_t>(bytes / 24), static_cast<std::size_t>(bytes / 4));
    if (!exact) id_hashes.reserve(static_cast<std::size_t>(bytes / 24));
  }
  try {
    csv_row_loop(
        CsvSource{file, CsvHeader::kNamed, header.fields}, kColumns,
        [&](const Cells& f, CsvRow& row) {
          trace.add(read_job(f, row, header, trace, ids), f[kId]);
        },
        [&](const std::string& message) {
          reject_row(trace, options,
                     options.skip_bad_jobs ? message : message + header.unknown_note);
        });
  } catch (const InputError&) {
    if (!exact && may_repeat(id_hashes)) return std::nullopt;
    throw;
  }
  if (!exact && may_repeat(id_hashes)) return std::nullopt;
  if (trace.jobs.empty() && trace.skipped == 0) throw InputError(file + ": the trace has no jobs");
  return trace;
}

} // namespace

Trace read_native_trace(const std::string& file, const ReadOptions& options) {
  std::optional<Trace> trace = read_native(file, options, false);
  if (!trace) trace = read_native(file, options, true);
  return std::move(*trace);
}

// The format's entry in the list of workloads/formats/format_list.h.
TraceFormat native_format() {
  return {"native",
          "dlsim's CSV: id, submit_s, workers, gpus_per_worker, duration_s or iterations, ...",
          &read_native_trace};
}

} // namespace dlsim
