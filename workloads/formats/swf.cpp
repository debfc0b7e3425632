// Reads an SWF log line by line through zlib (plain or .gz): `;` header comments, then 18
// whitespace-separated numeric fields per job, -1 meaning unknown. Processors become devices of
// the kind `trace.swf_devices` names, `trace.swf_procs_per_device` processors per device.
#include "workloads/formats/swf.h"

#include "sim/engine/error.h"
#include "workloads/formats/field_parse.h"
#include "workloads/formats/trace_limits.h"
#include "workloads/formats/zlib_source.h"

#include <fmt/format.h>
#include <libfccp/csv.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
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

// Times within kMaxTraceSeconds stay exact in SimTime (workloads/formats/trace_limits.h).
double check_seconds(double v) {
  if (v < 0) throw FieldError{fmt::format("must not be negative, got {}", v)};
  if (v > kMaxTraceSeconds)
    throw FieldError{fmt::format("must be at most {} s, got {}", kMaxTraceSeconds, v)};
  return v;
}

bool is_blank_or_comment(const char* line) {
  while (*line == ' ' || *line == '\t' || *line == '\r')
    ++line;
  return *line == '\0' || *line == ';';
}

} // namespace

Trace read_swf_trace(const std::string& file, const ReadOptions& options) {
  Trace trace;
  trace.file = file;
  const bool cpu = options.swf_devices == "cpu";
  if (!cpu && options.swf_devices != "gpu") {
    throw InputError(
        fmt::format("trace.swf_devices: expected gpu or cpu, got '{}'", options.swf_devices));
  }
  if (!(options.swf_procs_per_device >= 1)) {
    throw InputError(fmt::format("trace.swf_procs_per_device: must be at least 1, got {}",
                                 options.swf_procs_per_device));
  }
  // Job numbers with their lines: duplicates are found by sorting at the end, which is much
  // cheaper than a hash set of 10^5-10^6 strings.
  struct Id {
    std::int64_t number;
    unsigned line;
    std::size_t job;
    bool operator<(const Id& o) const {
      return number != o.number ? number < o.number : line < o.line;
    }
  };
  std::vector<Id> ids;
  const std::uint32_t cpu_type = cpu ? trace.device_types.intern("XeonCPU") : kNoString;
  std::size_t partial = 0;
  std::size_t data_lines = 0;
  try {
    io::LineReader in(file, open_plain_or_gzip(file));
    std::array<char*, kFields> f{};
    double previous_submit = -1;
    while (char* line = in.next_line()) {
      if (is_blank_or_comment(line)) {
        // "; MaxJobs: N" in the header: reserve once instead of growing the vector.
        if (const char* m = std::strstr(line, "MaxJobs:"); m != nullptr && trace.jobs.empty()) {
          long long n = std::strtoll(m + 8, nullptr, 10);
          if (n > 0)
            trace.jobs.reserve(
                static_cast<std::size_t>(std::min(n, 2'000'000LL))); // a bound for lying headers
        }
        continue;
      }
      ++data_lines;
      unsigned line_no = in.get_file_line();
      std::size_t field = kFields; // kFields: the line as a whole
      try {
        std::size_t n = split_fields(line, f);
        if (n != kFields) {
          throw FieldError{
              fmt::format("expected {} whitespace-separated fields (SWF v2.2), found {}", kFields,
                          n > kFields ? "more" : std::to_string(n))};
        }
        auto number = [&](std::size_t k) {
          field = k;
          return *parse_double_field(f[k]); // never empty: split_fields gives non-empty tokens
        };
        double status = number(10);
        if (status == 2 || status == 3 || status == 4) {
          // A partial execution of a checkpointed or swapped job: the job's own summary line
          // (status 0, 1 or 5) carries the whole job.
          ++partial;
          continue;
        }
        TraceJob job;
        job.line = line_no;
        field = 0;
        auto id = parse_int_field(f[0]);
        if (!id || *id < 0)
          throw FieldError{fmt::format("expected a job number (an integer >= 0), got '{}'", f[0])};
        job.name = f[0];
        double submit = number(1);
        check_seconds(submit);
        if (submit < previous_submit) {
          throw FieldError{fmt::format("goes backwards: {} is before the previous job's {} (an SWF "
                                       "log is sorted by submit time)",
                                       submit, previous_submit)};
        }
        double run = number(3);
        if (run < 0) throw FieldError{"run time unknown (-1): the job's work cannot be known"};
        check_seconds(run);
        // SWF times are whole seconds, so 0 means a run in [0, 1) s: take the middle.
        job.duration_s = run > 0 ? run : 0.5;
        double procs = number(4);
        if (procs <= 0) procs = number(7);
        if (procs <= 0) {
          field = 4;
          throw FieldError{"neither allocated_procs nor requested_procs is known (both -1 or 0)"};
        }
        if (procs != std::floor(procs) || procs > 1e9)
          throw FieldError{fmt::format("expected a whole number of processors, got {}", procs)};
        double devices = std::ceil(procs / options.swf_procs_per_device);
        if (devices > kMaxTraceGpus) {
          throw FieldError{fmt::format("{} processors are {} devices, more than {} (raise "
                                       "trace.swf_procs_per_device)",
                                       procs, devices, kMaxTraceGpus)};
        }
        job.workers = static_cast<std::uint32_t>(devices);
        job.min_workers = job.max_workers = job.workers;
        double requested = number(8);
        if (requested > 0) job.requested_s = check_seconds(requested);
        field = 10;
        if (status == 0)
          job.trace_status = 1;
        else if (status == 5)
          job.trace_status = 2;
        else if (status != 1 && status != -1) {
          throw FieldError{fmt::format("expected 1 (completed), 0 (failed), 5 (cancelled), 2-4 "
                                       "(partial) or -1, got {}",
                                       f[10])};
        }
        if (number(11) >= 0) job.user = trace.users.intern(f[11]);
        if (number(14) >= 0) job.queue = trace.queues.intern(f[14]);
        job.device_type = cpu_type;
        job.submit_s = submit;
        previous_submit = submit;
        ids.push_back({*id, line_no, trace.jobs.size()});
        trace.jobs.push_back(std::move(job));
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
  std::sort(ids.begin(), ids.end());
  std::vector<bool> duplicate(trace.jobs.size(), false);
  bool any_duplicate = false;
  for (std::size_t i = 1; i < ids.size(); ++i) {
    if (ids[i].number == ids[i - 1].number) {
      // The later line is the bad row; with --skip-bad-jobs the first one is kept.
      reject_row(
          trace, options,
          fmt::format("{}:{}: job_number (field 1): duplicate job number {} (first on line {})",
                      file, ids[i].line, ids[i].number, ids[i - 1].line));
      duplicate[ids[i].job] = any_duplicate = true;
    }
  }
  if (any_duplicate) {
    std::size_t k = 0;
    auto keep = std::remove_if(trace.jobs.begin(), trace.jobs.end(),
                               [&](const TraceJob&) { return duplicate[k++]; });
    trace.jobs.erase(keep, trace.jobs.end());
  }
  if (data_lines == 0)
    throw InputError(file + ": empty SWF log: no job lines (only ';' comments or nothing)");
  if (partial > 0) {
    trace.warnings.push_back(fmt::format("{}: ignored {} partial-execution lines (status 2, 3, 4); "
                                         "each job's summary line is used",
                                         file, partial));
  }
  if (trace.jobs.empty() && trace.skipped == 0) throw InputError(file + ": the trace has no jobs");
  return trace;
}

} // namespace dlsim
