// Reads the native CSV trace with the Fast C++ CSV Parser. Every field is read as text and
// converted here, so that each error names the file, the line and the column.
#include "workloads/formats/native.h"

#include "sim/engine/error.h"
#include "workloads/formats/field_parse.h"
#include "workloads/formats/trace_limits.h"
#include "workloads/formats/unique_ids.h"

#include <fmt/format.h>
#include <libfccp/csv.h>

#include <algorithm>
#include <array>

namespace dlsim {

namespace {

constexpr std::array<const char*, 18> kColumns = {
    "id",       "submit_s",    "workers",         "gpus_per_worker",   "duration_s", "iterations",
    "model",    "ps",          "cpus_per_worker", "mem_gb_per_worker", "user",       "queue",
    "priority", "min_workers", "max_workers",     "device_type",       "gpu_util",   "requested_s"};

// The header's names, to warn once about columns dlsim does not know.
std::vector<std::string> header_names(const std::string& file) {
  io::LineReader lines(file);
  char* line = lines.next_line();
  std::vector<std::string> out;
  if (line == nullptr) return out;
  std::string_view rest(line);
  while (true) {
    auto comma = rest.find(',');
    std::string_view name = rest.substr(0, comma);
    while (!name.empty() && (name.front() == ' ' || name.front() == '\t' || name.front() == '"'))
      name.remove_prefix(1);
    while (!name.empty() &&
           (name.back() == ' ' || name.back() == '\t' || name.back() == '\r' || name.back() == '"'))
      name.remove_suffix(1);
    out.emplace_back(name);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

} // namespace

Trace read_native_trace(const std::string& file, const ReadOptions& options) {
  Trace trace;
  trace.file = file;
  std::vector<std::string> header;
  try {
    header = header_names(file);
  } catch (const io::error::base& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
  if (header.empty()) throw InputError(file + ": empty file: expected a CSV header line");
  std::vector<std::string> unknown;
  for (const auto& h : header) {
    if (std::find_if(kColumns.begin(), kColumns.end(), [&](const char* c) { return h == c; }) ==
        kColumns.end()) {
      unknown.push_back(h);
    }
  }
  if (!unknown.empty()) {
    trace.warnings.push_back(
        fmt::format("{}: ignoring unknown columns: {}", file, fmt::join(unknown, ", ")));
  }
  const std::string unknown_note =
      unknown.empty()
          ? std::string()
          : fmt::format(" (note: unknown columns ignored: {})", fmt::join(unknown, ", "));
  for (const char* required : {"id", "submit_s", "workers"}) {
    if (std::find(header.begin(), header.end(), required) == header.end()) {
      throw InputError(fmt::format("{}:1: {}: required column missing from the header{}", file,
                                   required, unknown_note));
    }
  }
  bool has_duration = std::find(header.begin(), header.end(), "duration_s") != header.end();
  bool has_iterations = std::find(header.begin(), header.end(), "iterations") != header.end();
  if (!has_duration && !has_iterations) {
    throw InputError(fmt::format("{}:1: duration_s: the header needs duration_s or iterations{}",
                                 file, unknown_note));
  }

  try {
    io::CSVReader<kColumns.size(), io::trim_chars<' ', '\t', '\r'>,
                  io::double_quote_escape<',', '"'>>
        in(file);
    std::apply(
        [&](auto... names) {
          in.read_header(io::ignore_extra_column | io::ignore_missing_column, names...);
        },
        kColumns);
    std::array<char*, kColumns.size()> f{};
    UniqueIds seen_ids;
    while (true) {
      f.fill(nullptr);
      bool more = std::apply([&](auto&... cells) { return in.read_row(cells...); }, f);
      if (!more) break;
      unsigned line = in.get_file_line();
      const char* column = "";
      try {
        TraceJob job;
        job.line = line;
        column = "id";
        if (f[0] == nullptr || *f[0] == '\0') throw FieldError{"empty job id"};
        job.name = f[0];
        if (!seen_ids.insert(job.name))
          throw FieldError{fmt::format("duplicate job id '{}'", job.name)};
        column = "submit_s";
        auto submit = parse_double_field(f[1]);
        if (!submit) throw FieldError{"missing value"};
        if (*submit < 0) throw FieldError{fmt::format("must not be negative, got {}", *submit)};
        if (*submit > kMaxTraceSeconds)
          throw FieldError{
              fmt::format("must be at most {:g} s, got {}", kMaxTraceSeconds, *submit)};
        job.submit_s = *submit;
        column = "workers";
        auto workers = parse_int_field(f[2]);
        if (!workers) throw FieldError{"missing value"};
        if (*workers < 1) throw FieldError{fmt::format("must be at least 1, got {}", *workers)};
        job.workers = static_cast<std::uint32_t>(*workers);
        column = "gpus_per_worker";
        auto dpw = parse_int_field(f[3]).value_or(1);
        if (dpw < 1) throw FieldError{fmt::format("must be at least 1, got {}", dpw)};
        if (*workers > kMaxTraceGpus || dpw > kMaxTraceGpus || *workers * dpw > kMaxTraceGpus) {
          column = "workers";
          throw FieldError{fmt::format("{} workers x {} devices is more than {} devices", *workers,
                                       dpw, kMaxTraceGpus)};
        }
        job.devices_per_worker = static_cast<std::uint32_t>(dpw);
        column = "duration_s";
        auto duration = parse_double_field(f[4]);
        if (duration && !(*duration > 0))
          throw FieldError{fmt::format("must be positive, got {}", *duration)};
        if (duration && *duration > kMaxTraceSeconds)
          throw FieldError{
              fmt::format("must be at most {:g} s, got {}", kMaxTraceSeconds, *duration)};
        column = "iterations";
        auto iterations = parse_double_field(f[5]);
        if (iterations && !(*iterations > 0))
          throw FieldError{fmt::format("must be positive, got {}", *iterations)};
        if (iterations && *iterations > kMaxTraceIterations)
          throw FieldError{
              fmt::format("must be at most {:g}, got {}", kMaxTraceIterations, *iterations)};
        if (!duration && !iterations) {
          column = has_duration ? "duration_s" : "iterations";
          throw FieldError{"the job needs duration_s or iterations"};
        }
        if (duration && iterations) {
          column = "iterations";
          throw FieldError{"give duration_s or iterations, not both"};
        }
        job.duration_s = duration.value_or(-1);
        job.iterations = iterations.value_or(-1);
        column = "model";
        if (f[6] != nullptr && *f[6] != '\0') job.model = trace.models.intern(f[6]);
        if (iterations && job.model == kNoString)
          throw FieldError{"a job given by iterations needs a model"};
        column = "ps";
        auto ps = parse_int_field(f[7]).value_or(0);
        if (ps < 0) throw FieldError{fmt::format("must not be negative, got {}", ps)};
        job.ps = static_cast<std::uint32_t>(ps);
        column = "cpus_per_worker";
        job.cpus_per_worker = parse_double_field(f[8]).value_or(0);
        if (job.cpus_per_worker < 0) throw FieldError{"must not be negative"};
        column = "mem_gb_per_worker";
        job.mem_gb_per_worker = parse_double_field(f[9]).value_or(0);
        if (job.mem_gb_per_worker < 0) throw FieldError{"must not be negative"};
        column = "user";
        if (f[10] != nullptr) job.user = trace.users.intern(f[10]);
        column = "queue";
        if (f[11] != nullptr) job.queue = trace.queues.intern(f[11]);
        column = "priority";
        job.priority = static_cast<int>(parse_int_field(f[12]).value_or(0));
        column = "min_workers";
        auto min_w = parse_int_field(f[13]).value_or(job.workers);
        column = "max_workers";
        auto max_w = parse_int_field(f[14]).value_or(job.workers);
        if (min_w < 1 || min_w > job.workers) {
          column = "min_workers";
          throw FieldError{
              fmt::format("must be between 1 and workers ({}), got {}", job.workers, min_w)};
        }
        if (max_w < job.workers)
          throw FieldError{
              fmt::format("must be at least workers ({}), got {}", job.workers, max_w)};
        job.min_workers = static_cast<std::uint32_t>(min_w);
        job.max_workers = static_cast<std::uint32_t>(max_w);
        column = "device_type";
        if (f[15] != nullptr && *f[15] != '\0') job.device_type = trace.device_types.intern(f[15]);
        column = "gpu_util";
        auto util = parse_double_field(f[16]);
        if (util && (*util <= 0 || *util > 1))
          throw FieldError{fmt::format("must be in (0, 1], got {}", *util)};
        job.gpu_util = util.value_or(-1);
        column = "requested_s";
        job.requested_s = parse_double_field(f[17]).value_or(0);
        if (job.requested_s < 0) throw FieldError{"must not be negative"};
        trace.jobs.push_back(std::move(job));
      } catch (const FieldError& e) {
        std::string message = fmt::format("{}:{}: {}: {}", file, line, column, e.what);
        // The run stops here, before the warning about unknown columns would be printed, and a
        // misspelt column is a likely cause of the error: say it in the error itself.
        if (!options.skip_bad_jobs) message += unknown_note;
        reject_row(trace, options, message);
      }
    }
  } catch (const io::error::base& e) {
    throw InputError(std::string(e.what()));
  }
  if (trace.jobs.empty() && trace.skipped == 0) throw InputError(file + ": the trace has no jobs");
  return trace;
}

} // namespace dlsim
