// Reads an SWF log line by line through zlib (plain or .gz): `;` header comments, then 18
// whitespace-separated numeric fields per job, -1 meaning unknown. Processors become devices of
// the kind `trace.swf_devices` names, `trace.swf_procs_per_device` processors per device.
#include "workloads/formats/swf.h"
#include "workloads/formats/registry.h"

#include "sim/engine/error.h"
#include "workloads/formats/trace_fields.h"
#include "workloads/formats/trace_limits.h"
#include "workloads/formats/zlib_source.h"

#include <fmt/format.h>
#include <libfccp/csv.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <utility>
#include <vector>

namespace dlsim {

namespace {

constexpr std::size_t kFields = 18;
// Field names from the SWF definition (Parallel Workloads Archive, "The Standard Workload
// Format", version 2.2), used in error messages.
constexpr std::array<const char*, kFields> kFieldNames = {
    "job_number",   "submit_time",   "wait_time",       "run_time",       "allocated_procs",
    "avg_cpu_time", "used_memory",   "requested_procs", "requested_time", "requested_memory",
    "status",       "user_id",       "group_id",        "executable",     "queue",
    "partition",    "preceding_job", "think_time"};

// Splits on spaces and tabs; returns how many fields the line has (up to kFields + 1, so that
// "too many" is visible), with the first kFields stored NUL-terminated in place.
std::size_t split_fields(char* line, std::array<char*, kFields>& out) {
  std::size_t n = 0;
  char* p = line;
  while (true) {
    while (*p == ' ' || *p == '\t' || *p == '\r')
      ++p;
    if (*p == '\0') return n;
    if (n == kFields) return n + 1;
    out[n++] = p;
    while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r')
      ++p;
    if (*p == '\0') return n;
    *p++ = '\0';
  }
}

bool is_blank_or_comment(const char* line) {
  while (*line == ' ' || *line == '\t' || *line == '\r')
    ++line;
  return *line == '\0' || *line == ';';
}

// The job number and line of each job, to find duplicates by sorting at the end: much cheaper
// than a hash set of 10^5-10^6 strings.
struct JobNumber {
  std::int64_t number;
  unsigned line;
  std::size_t job;
  bool operator<(const JobNumber& o) const {
    return number != o.number ? number < o.number : line < o.line;
  }
};

// What the reader carries from line to line.
struct SwfState {
  bool cpu = false; // processors are XeonCPU sockets
  std::uint32_t cpu_type = kNoString;
  double previous_submit = -1;
  std::size_t partial = 0;
  std::size_t data_lines = 0;
  std::vector<JobNumber> numbers;
};

void check_swf_options(const ReadOptions& options) {
  if (options.swf_devices != "cpu" && options.swf_devices != "gpu") {
    throw InputError(
        fmt::format("trace.swf_devices: expected gpu or cpu, got '{}'", options.swf_devices));
  }
  if (!(options.swf_procs_per_device >= 1)) {
    throw InputError(fmt::format("trace.swf_procs_per_device: must be at least 1, got {}",
                                 options.swf_procs_per_device));
  }
}

// The most job lines the file can hold: a job line has 18 fields, so at least 36 bytes with its
// separators and line end. The size is the file's, or for gzip the uncompressed size its trailer
// records (ISIZE, RFC 1952); 0 when unknown (a pipe).
long long max_job_lines(const std::string& file) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) return 0;
  if (!is_gzip_file(file)) return static_cast<long long>(size / 36);
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (f == nullptr) return 0;
  unsigned char isize[4] = {0, 0, 0, 0};
  const bool ok = size >= 4 && std::fseek(f, -4, SEEK_END) == 0 && std::fread(isize, 1, 4, f) == 4;
  std::fclose(f);
  if (!ok) return 0;
  return static_cast<long long>((std::uint32_t{isize[0]} | std::uint32_t{isize[1]} << 8 |
                                 std::uint32_t{isize[2]} << 16 | std::uint32_t{isize[3]} << 24) /
                                36);
}

// "; MaxJobs: N" in the header: reserve once instead of growing the vector, for at most as many
// jobs as the file can hold (a fuzzed one-line file claiming 447,794 jobs reserved 79 MB) and at
// most 2M (a bound for lying headers).
void reserve_max_jobs(const char* comment, const std::string& file, Trace& trace) {
  const char* m = std::strstr(comment, "MaxJobs:");
  if (m == nullptr || !trace.jobs.empty()) return;
  long long n = std::min(std::strtoll(m + 8, nullptr, 10), 2'000'000LL);
  if (n > 0) n = std::min(n, max_job_lines(file));
  if (n > 0) trace.jobs.reserve(static_cast<std::size_t>(n));
}

// The number of devices of a job of `procs` processors.
std::uint32_t swf_devices(double procs, const ReadOptions& options) {
  if (procs != std::floor(procs) || procs > 1e9)
    throw FieldError{fmt::format("expected a whole number of processors, got {}", procs)};
  double devices = std::ceil(procs / options.swf_procs_per_device);
  if (devices > kMaxTraceGpus) {
    throw FieldError{fmt::format("{} processors are {} devices, more than {} (raise "
                                 "trace.swf_procs_per_device)",
                                 procs, devices, kMaxTraceGpus)};
  }
  return static_cast<std::uint32_t>(devices);
}

std::uint8_t swf_status(double status, const char* text) {
  if (status == 0) return 1;
  if (status == 5) return 2;
  if (status != 1 && status != -1) {
    throw FieldError{fmt::format("expected 1 (completed), 0 (failed), 5 (cancelled), 2-4 "
                                 "(partial) or -1, got {}",
                                 text)};
  }
  return 0;
}

// One job line: appended to trace.jobs unless it is a partial execution. `field` is pointed at
// the field being read (kFields: the line as a whole) for the error message.
void read_swf_line(char* line, unsigned line_no, std::size_t& field, Trace& trace,
                   const ReadOptions& options, SwfState& state) {
  std::array<char*, kFields> f{};
  std::size_t n = split_fields(line, f);
  if (n != kFields) {
    throw FieldError{fmt::format("expected {} whitespace-separated fields (SWF v2.2), found {}",
                                 kFields, n > kFields ? "more" : std::to_string(n))};
  }
  auto number = [&](std::size_t k) {
    field = k;
    return *parse_double_field(f[k]); // never empty: split_fields gives non-empty tokens
  };
  double status = number(10);
  if (status == 2 || status == 3 || status == 4) {
    // A partial execution of a checkpointed or swapped job: the job's own summary line (status
    // 0, 1 or 5) carries the whole job.
    ++state.partial;
    return;
  }
  TraceJob job;
  job.line = line_no;
  field = 0;
  auto id = parse_int_field(f[0]);
  if (!id || *id < 0)
    throw FieldError{fmt::format("expected a job number (an integer >= 0), got '{}'", f[0])};
  const std::string_view name = f[0];
  double submit = checked_seconds(number(1));
  if (submit < state.previous_submit) {
    throw FieldError{fmt::format("goes backwards: {} is before the previous job's {} (an SWF log "
                                 "is sorted by submit time)",
                                 submit, state.previous_submit)};
  }
  double run = number(3);
  if (run < 0) throw FieldError{"run time unknown (-1): the job's work cannot be known"};
  checked_seconds(run);
  // SWF times are whole seconds, so 0 means a run in [0, 1) s: take the middle.
  job.duration_s = run > 0 ? run : 0.5;
  double procs = number(4);
  if (procs <= 0) procs = number(7);
  if (procs <= 0) {
    field = 4;
    throw FieldError{"neither allocated_procs nor requested_procs is known (both -1 or 0)"};
  }
  job.workers = job.min_workers = job.max_workers = swf_devices(procs, options);
  double requested = number(8);
  if (requested > 0) job.requested_s = checked_seconds(requested);
  field = 10;
  job.trace_status = swf_status(status, f[10]);
  if (number(11) >= 0) job.user = trace.users.intern(f[11]);
  if (number(14) >= 0) job.queue = trace.queues.intern(f[14]);
  job.device_type = state.cpu_type;
  job.submit_s = submit;
  state.previous_submit = submit;
  state.numbers.push_back({*id, line_no, trace.jobs.size()});
  trace.add(job, name);
}

// Rejects the later line of each repeated job number (with --skip-bad-jobs the first is kept).
void drop_duplicates(Trace& trace, const ReadOptions& options, std::vector<JobNumber>& ids) {
  std::sort(ids.begin(), ids.end());
  std::vector<bool> duplicate(trace.jobs.size(), false);
  bool any_duplicate = false;
  for (std::size_t i = 1; i < ids.size(); ++i) {
    if (ids[i].number == ids[i - 1].number) {
      reject_row(
          trace, options,
          fmt::format("{}:{}: job_number (field 1): duplicate job number {} (first on line {})",
                      trace.file, ids[i].line, ids[i].number, ids[i - 1].line));
      duplicate[ids[i].job] = any_duplicate = true;
    }
  }
  if (!any_duplicate) return;
  std::size_t k = 0;
  auto keep = std::remove_if(trace.jobs.begin(), trace.jobs.end(),
                             [&](const TraceJob&) { return duplicate[k++]; });
  trace.jobs.erase(keep, trace.jobs.end());
}

} // namespace

Trace read_swf_trace(const std::string& file, const ReadOptions& options) {
  Trace trace;
  trace.file = file;
  check_swf_options(options);
  SwfState state;
  state.cpu = options.swf_devices == "cpu";
  state.cpu_type = state.cpu ? trace.device_types.intern("XeonCPU") : kNoString;
  try {
    io::LineReader in(file, open_plain_or_gzip(file));
    while (char* line = in.next_line()) {
      if (is_blank_or_comment(line)) {
        reserve_max_jobs(line, file, trace);
        continue;
      }
      ++state.data_lines;
      unsigned line_no = in.get_file_line();
      std::size_t field = kFields;
      try {
        read_swf_line(line, line_no, field, trace, options, state);
      } catch (const FieldError& e) {
        reject_row(trace, options,
                   field == kFields ? fmt::format("{}:{}: row: {}", file, line_no, e.what)
                                    : fmt::format("{}:{}: {} (field {}): {}", file, line_no,
                                                  kFieldNames[field], field + 1, e.what));
      }
    }
  } catch (const io::error::base& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
  drop_duplicates(trace, options, state.numbers);
  if (state.data_lines == 0)
    throw InputError(file + ": empty SWF log: no job lines (only ';' comments or nothing)");
  if (state.partial > 0) {
    trace.warnings.push_back(fmt::format("{}: ignored {} partial-execution lines (status 2, 3, 4); "
                                         "each job's summary line is used",
                                         file, state.partial));
  }
  if (trace.jobs.empty() && trace.skipped == 0) throw InputError(file + ": the trace has no jobs");
  return trace;
}

std::vector<ConfigKey> swf_keys(ReadOptions& options) {
  return {
      {.path = "trace.swf_devices",
       .type = KeyType::kText,
       .field = &options.swf_devices,
       .doc = "What an SWF trace's processors are: GPUs, or `XeonCPU` devices "
              "([traces.md](traces.md)).",
       .choices = {"gpu", "cpu"}},
      {.path = "trace.swf_procs_per_device",
       .type = KeyType::kNumber,
       .field = &options.swf_procs_per_device,
       .doc = "SWF processors per device: `workers` = ⌈processors / this⌉.",
       .min = 1},
  };
}

// The format's entry in the list of workloads/formats/format_list.h.
TraceFormat swf_format() {
  return {"swf", "Standard Workload Format v2.2 (Parallel Workloads Archive), plain or .gz",
          &read_swf_trace, nullptr, &swf_keys};
}

} // namespace dlsim
