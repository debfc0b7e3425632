// Reads an openb pod list (plain or .gz) through the row loop of csv_row_loop.h: columns by
// header name, every field converted here so that each error names the file, line and column.
#include "workloads/formats/openb.h"
#include "workloads/formats/registry.h"

#include "workloads/formats/csv_rows.h"
#include "workloads/formats/trace_fields.h"

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
using Cells = std::array<char*, kColumns.size()>;

// What the header says about the file; an InputError when it is not an openb pod list.
struct OpenbHeader {
  std::size_t fields = 0;
  bool timed = false; // has creation_time and deletion_time
};

OpenbHeader check_openb_header(const std::string& file) {
  auto header = read_csv_header(file);
  if (header.empty()) {
    throw InputError(file + ": empty file: expected an openb pod list header "
                            "(name,cpu_milli,memory_mib,num_gpu,gpu_milli,...)");
  }
  std::vector<std::string> missing;
  for (int c = kName; c <= kGpuMilli; ++c) {
    if (!has_column(header, kColumns[c])) missing.emplace_back(kColumns[c]);
  }
  if (!missing.empty()) {
    throw InputError(fmt::format("{}:1: the header is not an openb pod list: missing {} (expected "
                                 "name,cpu_milli,memory_mib,num_gpu,gpu_milli and optionally "
                                 "gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_"
                                 "time)",
                                 file, fmt::join(missing, ", ")));
  }
  bool created = has_column(header, "creation_time");
  bool deleted = has_column(header, "deletion_time");
  if (created != deleted) {
    throw InputError(fmt::format("{}:1: {}: the header has one of creation_time and deletion_time "
                                 "but not the other",
                                 file, created ? "deletion_time" : "creation_time"));
  }
  return {header.size(), created && deleted};
}

// How many pods of each kind were left out or changed, for the warnings at the end.
struct OpenbCounts {
  std::size_t cpu_pods = 0;
  std::size_t never_ran = 0;
  std::size_t multi_type = 0;
};

// num_gpu and gpu_milli: whole GPUs, or a fraction of one.
std::int64_t read_gpus(const Cells& f, CsvRow& row, TraceJob& job) {
  row.column = "num_gpu";
  std::int64_t gpus = required_non_negative_int(f[kNumGpu]);
  if (gpus > 1024) throw FieldError{fmt::format("more GPUs than any node has, got {}", gpus)};
  row.column = "gpu_milli";
  std::int64_t milli = required_non_negative_int(f[kGpuMilli]);
  if (milli > 1000)
    throw FieldError{fmt::format("must be at most 1000 (one whole GPU), got {}", milli)};
  if (gpus > 1 && milli != 1000) {
    throw FieldError{
        fmt::format("a pod of {} GPUs must have gpu_milli 1000 (whole GPUs), got {}", gpus, milli)};
  }
  if (gpus == 1 && milli == 0) throw FieldError{"a pod of 1 GPU needs gpu_milli > 0"};
  // A CPU-only pod (num_gpu 0) is a host task: 0 devices per worker (docs/runtime.md#host-tasks).
  job.devices_per_worker = static_cast<std::uint32_t>(gpus);
  if (gpus == 1) job.gpu_share_min = static_cast<double>(milli) / 1000.0;
  return gpus;
}

// gpu_spec: one GPU model pins the pod to it; 'A|B' lets it use any GPU.
void read_gpu_spec(const Cells& f, CsvRow& row, std::int64_t gpus, Trace& trace, TraceJob& job,
                   OpenbCounts& counts) {
  row.column = "gpu_spec";
  if (empty_field(f[kSpec])) return;
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
  if (types.size() == 1) {
    job.device_type = trace.device_types.intern(types[0]);
    job.observed_on_device_type = true;
  } else if (gpus > 0)
    ++counts.multi_type;
}

// pod_phase; returns true for a Pending pod.
bool read_phase(const Cells& f, CsvRow& row, TraceJob& job) {
  row.column = "pod_phase";
  if (f[kPhase] == nullptr) return false;
  std::string_view phase(f[kPhase]);
  if (phase == "Failed") {
    job.trace_status = 1;
    return false;
  }
  if (phase == "Pending") return true;
  if (phase != "Running" && phase != "Succeeded")
    throw FieldError{
        fmt::format("expected Running, Succeeded, Failed or Pending, got '{}'", phase)};
  return false;
}

// Submit and run time from creation, scheduled and deletion time; returns true for a pod that
// was never scheduled.
bool read_times(const Cells& f, CsvRow& row, TraceJob& job) {
  row.column = "creation_time";
  auto created = parse_double_field(f[kCreate]);
  if (!created) throw FieldError{"missing value"};
  checked_seconds(*created);
  row.column = "deletion_time";
  auto deleted = parse_double_field(f[kDelete]);
  if (!deleted) throw FieldError{"missing value"};
  checked_seconds(*deleted);
  row.column = "scheduled_time";
  auto scheduled = parse_double_field(f[kSched]);
  if (scheduled) checked_seconds(*scheduled);
  if (scheduled && *scheduled < *created) {
    throw FieldError{
        fmt::format("goes backwards: {} is before creation_time {}", *scheduled, *created)};
  }
  row.column = "deletion_time";
  double started = scheduled.value_or(*created);
  if (*deleted < started) {
    throw FieldError{fmt::format("goes backwards: {} is before {} {}", *deleted,
                                 scheduled ? "scheduled_time" : "creation_time", started)};
  }
  job.submit_s = *created;
  // Whole seconds: a pod deleted in the second it was scheduled ran [0, 1) s.
  job.duration_s = *deleted > started ? *deleted - started : 0.5;
  return !scheduled;
}

void warn_about_left_out(Trace& trace, const OpenbCounts& counts) {
  const std::string& file = trace.file;
  if (counts.cpu_pods > 0) {
    trace.warnings.push_back(fmt::format("{}: {} CPU-only pods (num_gpu 0) run as host tasks: "
                                         "each holds its cores and memory on a node, no device",
                                         file, counts.cpu_pods));
  }
  if (counts.never_ran > 0) {
    trace.warnings.push_back(
        fmt::format("{}: skipped {} pods that never ran (Pending, no scheduled_time; "
                    "trace.openb_replay_pending: true replays them)",
                    file, counts.never_ran));
  }
  if (counts.multi_type > 0) {
    trace.warnings.push_back(fmt::format(
        "{}: {} pods allow several GPU models (gpu_spec 'A|B'); dlsim lets them use any GPU", file,
        counts.multi_type));
  }
}

} // namespace

Trace read_openb_trace(const std::string& file, const ReadOptions& options) {
  Trace trace;
  trace.file = file;
  const OpenbHeader header = check_openb_header(file);
  const double untimed_s =
      options.openb_duration_s > 0 ? options.openb_duration_s : kOpenbUntimedDurationS;
  if (!header.timed) {
    trace.warnings.push_back(fmt::format(
        "{}: the pod list has no creation/deletion times: every pod is submitted at 0 in file "
        "order and runs {} s (trace.openb_duration_s)",
        file, untimed_s));
  }
  OpenbCounts counts;
  std::unordered_set<std::string> seen_ids;
  CsvSource source{file, CsvHeader::kNamed, header.fields};
  for_each_csv_row(source, kColumns, trace, options, [&](const Cells& f, CsvRow& row) {
    TraceJob job;
    job.line = row.line;
    row.column = "name";
    if (empty_field(f[kName])) throw FieldError{"empty pod name"};
    const std::string_view name = f[kName];
    if (!seen_ids.emplace(name).second)
      throw FieldError{fmt::format("duplicate pod name '{}'", name)};
    row.column = "cpu_milli";
    job.cpus_per_worker = static_cast<double>(required_non_negative_int(f[kCpu])) / 1000.0;
    row.column = "memory_mib";
    job.mem_gb_per_worker = static_cast<double>(required_non_negative_int(f[kMem])) / 1024.0;
    std::int64_t gpus = read_gpus(f, row, job);
    read_gpu_spec(f, row, gpus, trace, job, counts);
    row.column = "qos";
    if (!empty_field(f[kQos])) job.queue = trace.queues.intern(f[kQos]);
    bool pending = read_phase(f, row, job);
    if (header.timed) {
      pending = read_times(f, row, job) || pending;
    } else {
      job.submit_s = 0;
      job.duration_s = untimed_s;
    }
    if (gpus == 0) {
      // A CPU-only pod holds host cores and memory and no device (a host task), on any node; it
      // runs its observed time. gpu_spec names GPUs, which it does not use.
      job.device_type = kNoString;
      job.observed_on_device_type = false;
    }
    if (pending && !options.openb_replay_pending) {
      ++counts.never_ran;
    } else {
      if (gpus == 0) ++counts.cpu_pods;
      trace.add(job, name);
    }
  });
  warn_about_left_out(trace, counts);
  if (trace.jobs.empty() && trace.skipped == 0) {
    throw InputError(file + ": the pod list has no pod that ran");
  }
  return trace;
}

std::vector<ConfigKey> openb_keys(ReadOptions& options) {
  return {
      {.path = "trace.openb_duration_s",
       .type = KeyType::kSeconds,
       .field = &options.openb_duration_s,
       .doc = "Run time of an openb job that has none (0: the reader's default).",
       .min = 0},
      {.path = "trace.openb_replay_pending",
       .type = KeyType::kFlag,
       .field = &options.openb_replay_pending,
       .doc = "Replay the openb pods that were still pending, from their creation time."},
  };
}

// The format's entry in the list of workloads/formats/format_list.h.
TraceFormat openb_format() {
  return {"openb",
          "Alibaba openb 2023 pod list: name, cpu_milli, memory_mib, num_gpu, gpu_milli, ...",
          &read_openb_trace, nullptr, &openb_keys};
}

} // namespace dlsim
