// Reads an openb pod list with the Fast C++ CSV Parser (plain or .gz): columns by header name,
// every field converted here so that each error names the file, line and column.
#include "workloads/formats/openb.h"

#include "sim/engine/error.h"
#include "workloads/formats/field_parse.h"
#include "workloads/formats/trace_limits.h"
#include "workloads/formats/zlib_source.h"

#include <fmt/format.h>
#include <libfccp/csv.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <unordered_set>
#include <vector>

namespace dlsim {

std::string_view openb_device_type(std::string_view model) {
  if (model == "V100M16" || model == "V100M32") return "V100";
  return model;
}

namespace {

constexpr std::array<const char*, 11> kColumns = {
    "name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",     "gpu_spec",
    "qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time"};
enum Col { kName, kCpu, kMem, kNumGpu, kGpuMilli, kSpec, kQos, kPhase, kCreate, kDelete, kSched };

bool empty(const char* f) {
  return f == nullptr || *f == '\0';
}

// Times within kMaxTraceSeconds stay exact in SimTime (workloads/formats/trace_limits.h).
void check_seconds(double v) {
  if (v < 0) throw FieldError{fmt::format("must not be negative, got {}", v)};
  if (v > kMaxTraceSeconds)
    throw FieldError{fmt::format("must be at most {} s, got {}", kMaxTraceSeconds, v)};
}

std::int64_t required_int(const char* f) {
  auto v = parse_int_field(f);
  if (!v) throw FieldError{"missing value"};
  if (*v < 0) throw FieldError{fmt::format("must not be negative, got {}", *v)};
  return *v;
}

} // namespace

Trace read_openb_trace(const std::string& file, const ReadOptions& options) {
  Trace trace;
  trace.file = file;
  std::size_t cpu_pods = 0, never_ran = 0, multi_type = 0;
  bool timed = false;
  try {
    io::CSVReader<kColumns.size(), io::trim_chars<' ', '\t', '\r'>,
                  io::double_quote_escape<',', '"'>>
        in(file, open_plain_or_gzip(file));
    try {
      std::apply(
          [&](auto... names) {
            in.read_header(io::ignore_extra_column | io::ignore_missing_column, names...);
          },
          kColumns);
    } catch (const io::error::header_missing&) {
      throw InputError(file + ": empty file: expected an openb pod list header "
                              "(name,cpu_milli,memory_mib,num_gpu,gpu_milli,...)");
    }
    std::vector<std::string> missing;
    for (int c = kName; c <= kGpuMilli; ++c) {
      if (!in.has_column(kColumns[c])) missing.emplace_back(kColumns[c]);
    }
    if (!missing.empty()) {
      throw InputError(
          fmt::format("{}:1: the header is not an openb pod list: missing {} (expected "
                      "name,cpu_milli,memory_mib,num_gpu,gpu_milli and optionally "
                      "gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time)",
                      file, fmt::join(missing, ", ")));
    }
    timed = in.has_column("creation_time") && in.has_column("deletion_time");
    if (!timed && (in.has_column("creation_time") || in.has_column("deletion_time"))) {
      throw InputError(
          fmt::format("{}:1: {}: the header has one of creation_time and deletion_time "
                      "but not the other",
                      file, in.has_column("creation_time") ? "deletion_time" : "creation_time"));
    }
    const double untimed_s =
        options.openb_duration_s > 0 ? options.openb_duration_s : kOpenbUntimedDurationS;
    if (!timed) {
      trace.warnings.push_back(fmt::format(
          "{}: the pod list has no creation/deletion times: every pod is submitted at 0 in file "
          "order and runs {} s (trace.openb_duration_s)",
          file, untimed_s));
    }

    std::array<char*, kColumns.size()> f{};
    std::unordered_set<std::string> seen_ids;
    while (true) {
      const char* column = "";
      unsigned line = in.get_file_line() + 1;
      try {
        f.fill(nullptr);
        bool more = false;
        try {
          more = std::apply([&](auto&... cells) { return in.read_row(cells...); }, f);
        } catch (const io::error::too_many_columns&) {
          line = in.get_file_line();
          throw FieldError{"more columns than the header has"};
        } catch (const io::error::too_few_columns&) {
          line = in.get_file_line();
          throw FieldError{"fewer columns than the header has"};
        } catch (const io::error::escaped_string_not_closed&) {
          line = in.get_file_line();
          throw FieldError{"a quoted field is not closed"};
        }
        if (!more) break;
        line = in.get_file_line();
        TraceJob job;
        job.line = line;
        column = "name";
        if (empty(f[kName])) throw FieldError{"empty pod name"};
        job.name = f[kName];
        if (!seen_ids.insert(job.name).second)
          throw FieldError{fmt::format("duplicate pod name '{}'", job.name)};
        column = "cpu_milli";
        job.cpus_per_worker = static_cast<double>(required_int(f[kCpu])) / 1000.0;
        column = "memory_mib";
        job.mem_gb_per_worker = static_cast<double>(required_int(f[kMem])) / 1024.0;
        column = "num_gpu";
        std::int64_t gpus = required_int(f[kNumGpu]);
        if (gpus > 1024) throw FieldError{fmt::format("more GPUs than any node has, got {}", gpus)};
        column = "gpu_milli";
        std::int64_t milli = required_int(f[kGpuMilli]);
        if (milli > 1000)
          throw FieldError{fmt::format("must be at most 1000 (one whole GPU), got {}", milli)};
        if (gpus > 1 && milli != 1000) {
          throw FieldError{fmt::format(
              "a pod of {} GPUs must have gpu_milli 1000 (whole GPUs), got {}", gpus, milli)};
        }
        if (gpus == 1 && milli == 0) throw FieldError{"a pod of 1 GPU needs gpu_milli > 0"};
        job.devices_per_worker = static_cast<std::uint32_t>(std::max<std::int64_t>(gpus, 1));
        if (gpus == 1) job.gpu_fraction = static_cast<double>(milli) / 1000.0;
        column = "gpu_spec";
        if (!empty(f[kSpec])) {
          std::vector<std::string_view> types;
          std::string_view rest(f[kSpec]);
          while (true) {
            auto bar = rest.find('|');
            std::string_view t = openb_device_type(rest.substr(0, bar));
            if (t.empty()) throw FieldError{fmt::format("empty GPU model in '{}'", f[kSpec])};
            if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
            if (bar == std::string_view::npos) break;
            rest.remove_prefix(bar + 1);
          }
          if (types.size() == 1)
            job.device_type = trace.device_types.intern(types[0]);
          else if (gpus > 0)
            ++multi_type;
        }
        column = "qos";
        if (!empty(f[kQos])) job.queue = trace.queues.intern(f[kQos]);
        column = "pod_phase";
        bool pending = false;
        if (f[kPhase] != nullptr) {
          std::string_view phase(f[kPhase]);
          if (phase == "Failed")
            job.trace_status = 1;
          else if (phase == "Pending")
            pending = true;
          else if (phase != "Running" && phase != "Succeeded") {
            throw FieldError{
                fmt::format("expected Running, Succeeded, Failed or Pending, got '{}'", phase)};
          }
        }
        if (timed) {
          column = "creation_time";
          auto created = parse_double_field(f[kCreate]);
          if (!created) throw FieldError{"missing value"};
          check_seconds(*created);
          column = "deletion_time";
          auto deleted = parse_double_field(f[kDelete]);
          if (!deleted) throw FieldError{"missing value"};
          check_seconds(*deleted);
          column = "scheduled_time";
          auto scheduled = parse_double_field(f[kSched]);
          if (scheduled) check_seconds(*scheduled);
          if (scheduled && *scheduled < *created) {
            throw FieldError{
                fmt::format("goes backwards: {} is before creation_time {}", *scheduled, *created)};
          }
          column = "deletion_time";
          double started = scheduled.value_or(*created);
          if (*deleted < started) {
            throw FieldError{fmt::format("goes backwards: {} is before {} {}", *deleted,
                                         scheduled ? "scheduled_time" : "creation_time", started)};
          }
          job.submit_s = *created;
          // Whole seconds: a pod deleted in the second it was scheduled ran [0, 1) s.
          job.duration_s = *deleted > started ? *deleted - started : 0.5;
          if (!scheduled) pending = true;
        } else {
          job.submit_s = 0;
          job.duration_s = untimed_s;
        }
        if (gpus == 0) {
          ++cpu_pods;
          continue;
        }
        if (pending) {
          ++never_ran;
          continue;
        }
        trace.jobs.push_back(std::move(job));
      } catch (const FieldError& e) {
        reject_row(trace, options,
                   fmt::format("{}:{}: {}: {}", file, line, *column ? column : "row", e.what));
      }
    }
  } catch (const io::error::base& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
  if (cpu_pods > 0) {
    trace.warnings.push_back(
        fmt::format("{}: skipped {} CPU-only pods (num_gpu 0)", file, cpu_pods));
  }
  if (never_ran > 0) {
    trace.warnings.push_back(fmt::format(
        "{}: skipped {} GPU pods that never ran (Pending, no scheduled_time)", file, never_ran));
  }
  if (multi_type > 0) {
    trace.warnings.push_back(fmt::format(
        "{}: {} pods allow several GPU models (gpu_spec 'A|B'); dlsim lets them use any GPU", file,
        multi_type));
  }
  if (trace.jobs.empty() && trace.skipped == 0) {
    throw InputError(file + ": the pod list has no GPU pod that ran");
  }
  return trace;
}

} // namespace dlsim
