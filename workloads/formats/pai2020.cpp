// Joins the PAI 2020 tables: the task table gives each job's GPU workers, plan and run time; the
// group-tag table the requested GPU type; the sensor table the measured GPU utilization; the job
// table the submit time, user and status, and the order of the jobs.
#include "workloads/formats/pai2020.h"

#include "sim/engine/error.h"
#include "workloads/formats/field_parse.h"
#include "workloads/formats/trace_limits.h"
#include "workloads/formats/zlib_source.h"

#include <fmt/format.h>
#include <libfccp/csv.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace dlsim {

namespace fs = std::filesystem;

std::string_view pai2020_device_type(std::string_view gpu_type) {
  if (gpu_type == "V100M32") return "V100";
  if (gpu_type == "V100" || gpu_type == "P100" || gpu_type == "T4") return gpu_type;
  return {};
}

namespace {

// The published column orders (the .header files of alibaba/clusterdata).
constexpr std::array<const char*, 6> kJob = {"job_name", "inst_id",    "user",
                                             "status",   "start_time", "end_time"};
constexpr std::array<const char*, 10> kTask = {"job_name",   "task_name", "inst_num", "status",
                                               "start_time", "end_time",  "plan_cpu", "plan_mem",
                                               "plan_gpu",   "gpu_type"};
constexpr std::array<const char*, 5> kGroupTag = {"inst_id", "user", "gpu_type_spec", "group",
                                                  "workload"};
constexpr std::array<const char*, 16> kSensor = {
    "job_name",  "task_name",    "worker_name", "inst_id",    "machine",         "gpu_name",
    "cpu_usage", "gpu_wrk_util", "avg_mem",     "max_mem",    "avg_gpu_wrk_mem", "max_gpu_wrk_mem",
    "read",      "write",        "read_count",  "write_count"};

template <std::size_t N>
std::string joined(const std::array<const char*, N>& names) {
  std::string s;
  for (const char* n : names) {
    if (!s.empty()) s.push_back(',');
    s.append(n);
  }
  return s;
}

// The first line, trimmed at the end; nullopt for an empty file.
std::optional<std::string> first_line(const std::string& file) {
  try {
    io::LineReader lines(file, open_plain_or_gzip(file));
    char* line = lines.next_line();
    if (line == nullptr) return std::nullopt;
    std::string s = line;
    while (!s.empty() && (s.back() == '\r' || s.back() == ' '))
      s.pop_back();
    return s;
  } catch (const io::error::base& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
}

// The table's file in the directory: NAME.csv or NAME.csv.gz; "" when absent.
std::string table_file(const fs::path& dir, const std::string& name) {
  for (const char* ext : {".csv", ".csv.gz"}) {
    fs::path p = dir / (name + ext);
    if (fs::is_regular_file(p)) return p.string();
  }
  return "";
}

// Reads one header-less table (a first line equal to the published header is skipped). Calls
// on_row(fields, column) per row; on_row throws FieldError after pointing `column` at the field.
template <std::size_t N, class OnRow>
void read_table(const fs::path& dir, const std::string& name, const std::string& file,
                const std::array<const char*, N>& columns, Trace& trace, const ReadOptions& options,
                OnRow on_row) {
  const std::string header = joined(columns);
  fs::path header_file = dir / (name + ".header");
  if (fs::is_regular_file(header_file)) {
    std::string given = first_line(header_file.string()).value_or("");
    if (given != header) {
      throw InputError(fmt::format("{}:1: expected the published PAI 2020 columns '{}', got '{}'",
                                   header_file.string(), header, given));
    }
  }
  auto first = first_line(file);
  if (!first)
    throw InputError(fmt::format("{}: empty file: expected rows of {} ({})", file, name, header));
  bool has_header = *first == header;
  try {
    io::CSVReader<N, io::trim_chars<' ', '\t', '\r'>, io::double_quote_escape<',', '"'>> in(
        file, open_plain_or_gzip(file));
    if (has_header) {
      std::apply([&](auto... n) { in.read_header(io::ignore_no_column, n...); }, columns);
    } else {
      std::apply([&](auto... n) { in.set_header(n...); }, columns);
    }
    std::array<char*, N> f{};
    while (true) {
      const char* column = "row";
      unsigned line = in.get_file_line() + 1;
      try {
        f.fill(nullptr);
        bool more = false;
        try {
          more = std::apply([&](auto&... cells) { return in.read_row(cells...); }, f);
        } catch (const io::error::too_many_columns&) {
          line = in.get_file_line();
          throw FieldError{fmt::format("more than the {} columns of {} ({})", N, name, header)};
        } catch (const io::error::too_few_columns&) {
          line = in.get_file_line();
          throw FieldError{fmt::format("fewer than the {} columns of {} ({})", N, name, header)};
        } catch (const io::error::escaped_string_not_closed&) {
          line = in.get_file_line();
          throw FieldError{"a quoted field is not closed"};
        }
        if (!more) break;
        line = in.get_file_line();
        on_row(f, line, column);
      } catch (const FieldError& e) {
        reject_row(trace, options, fmt::format("{}:{}: {}: {}", file, line, column, e.what));
      }
    }
  } catch (const io::error::base& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
}

bool empty(const char* f) {
  return f == nullptr || *f == '\0';
}

// Times within kMaxTraceSeconds stay exact in SimTime (workloads/formats/trace_limits.h).
void check_seconds(double v) {
  if (v < 0) throw FieldError{fmt::format("must not be negative, got {}", v)};
  if (v > kMaxTraceSeconds)
    throw FieldError{fmt::format("must be at most {} s, got {}", kMaxTraceSeconds, v)};
}

constexpr double kInf = std::numeric_limits<double>::infinity();

// What the task table says about one job: its GPU tasks summed into one gang of workers.
struct JobTasks {
  double workers = 0;  // instances of GPU tasks
  double plan_gpu = 0; // the largest GPU plan of one instance, percent
  double plan_cpu = 0; // of the GPU tasks, percent
  double plan_mem = 0; // GB
  double start = kInf;
  double end = -kInf;
  bool untimed = false; // a GPU task without start or end time
  std::string gpu_type; // of the GPU tasks; "" when none or they differ
  bool mixed_types = false;
  std::uint32_t ps = 0;
  std::vector<std::string> gpu_tasks; // task names, to pick the sensor rows
  double util_sum = 0;                // gpu_wrk_util of the GPU tasks' instances
  std::size_t util_count = 0;
  bool used = false; // joined with a job row
};

} // namespace

Trace read_pai2020_trace(const std::string& directory, const ReadOptions& options) {
  Trace trace;
  trace.file = directory;
  fs::path dir(directory);
  if (!fs::is_directory(dir)) {
    throw InputError(directory + ": the pai2020 format reads a directory holding pai_job_table.csv "
                                 "and pai_task_table.csv (and optionally pai_group_tag_table.csv, "
                                 "pai_sensor_table.csv)");
  }
  std::string job_file = table_file(dir, "pai_job_table");
  std::string task_file = table_file(dir, "pai_task_table");
  for (auto [f, n] :
       {std::pair{job_file, "pai_job_table"}, std::pair{task_file, "pai_task_table"}}) {
    if (f.empty())
      throw InputError(fmt::format("{}: {}.csv (or .csv.gz) is missing", directory, n));
  }
  // Jobs are rows of the job table: errors found later, when the trace is resolved against the
  // cluster, name that file and line.
  trace.file = job_file;

  // Task table: one JobTasks per job_name.
  std::unordered_map<std::string, JobTasks> tasks;
  read_table(
      dir, "pai_task_table", task_file, kTask, trace, options,
      [&](std::array<char*, 10>& f, unsigned, const char*& column) {
        column = "job_name";
        if (empty(f[0])) throw FieldError{"empty job name"};
        column = "inst_num";
        auto inst = parse_double_field(f[2]);
        if (!inst) throw FieldError{"missing value"};
        if (*inst < 0 || *inst != std::floor(*inst) || *inst > 1e6) {
          throw FieldError{fmt::format("expected a whole number of instances, got {}", f[2])};
        }
        column = "start_time";
        auto start = parse_double_field(f[4]);
        if (start) check_seconds(*start);
        column = "end_time";
        auto end = parse_double_field(f[5]);
        if (end) check_seconds(*end);
        if (start && end && *end < *start) {
          throw FieldError{fmt::format("goes backwards: {} is before start_time {}", *end, *start)};
        }
        column = "plan_cpu";
        double cpu = parse_double_field(f[6]).value_or(0);
        if (cpu < 0) throw FieldError{fmt::format("must not be negative, got {}", cpu)};
        column = "plan_mem";
        double mem = parse_double_field(f[7]).value_or(0);
        if (mem < 0) throw FieldError{fmt::format("must not be negative, got {}", mem)};
        column = "plan_gpu";
        double gpu = parse_double_field(f[8]).value_or(0);
        if (gpu < 0 || gpu > 6400)
          throw FieldError{fmt::format("must be 0 to 6400 percent, got {}", gpu)};
        JobTasks& t = tasks[f[0]];
        if (gpu > 0) {
          t.workers += *inst;
          t.plan_gpu = std::max(t.plan_gpu, gpu);
          t.plan_cpu = std::max(t.plan_cpu, cpu);
          t.plan_mem = std::max(t.plan_mem, mem);
          if (!start || !end) t.untimed = true;
          if (start) t.start = std::min(t.start, *start);
          if (end) t.end = std::max(t.end, *end);
          std::string type = empty(f[9]) ? "" : f[9];
          if (t.gpu_tasks.empty())
            t.gpu_type = type;
          else if (type != t.gpu_type)
            t.mixed_types = true;
          t.gpu_tasks.emplace_back(f[1] != nullptr ? f[1] : "");
        } else if (f[1] != nullptr && std::string_view(f[1]) == "ps") {
          t.ps += static_cast<std::uint32_t>(*inst);
        }
      });

  // Group tags: the GPU type the user asked for, by inst_id (the job id).
  std::unordered_map<std::string, std::string> requested_type;
  std::string tag_file = table_file(dir, "pai_group_tag_table");
  if (!tag_file.empty()) {
    read_table(dir, "pai_group_tag_table", tag_file, kGroupTag, trace, options,
               [&](std::array<char*, 5>& f, unsigned, const char*& column) {
                 column = "inst_id";
                 if (empty(f[0])) throw FieldError{"empty inst_id"};
                 if (!empty(f[2])) requested_type.emplace(f[0], f[2]);
               });
  }

  // Sensors: mean gpu_wrk_util over the instances of each job's GPU tasks.
  std::string sensor_file = table_file(dir, "pai_sensor_table");
  if (!sensor_file.empty()) {
    read_table(dir, "pai_sensor_table", sensor_file, kSensor, trace, options,
               [&](std::array<char*, 16>& f, unsigned, const char*& column) {
                 column = "job_name";
                 if (empty(f[0])) throw FieldError{"empty job name"};
                 column = "gpu_wrk_util";
                 auto util = parse_double_field(f[7]);
                 if (util && *util < 0)
                   throw FieldError{fmt::format("must not be negative, got {}", *util)};
                 auto it = tasks.find(f[0]);
                 if (!util || it == tasks.end()) return;
                 std::string_view task = f[1] != nullptr ? f[1] : "";
                 for (const auto& name : it->second.gpu_tasks) {
                   if (name == task) {
                     it->second.util_sum += *util;
                     ++it->second.util_count;
                     return;
                   }
                 }
               });
  }

  // Jobs, in the job table's order.
  std::size_t unfinished = 0, cpu_only = 0, no_tasks = 0, no_run_time = 0;
  std::vector<std::string> unmatched_types;
  std::unordered_set<std::string> seen;
  read_table(
      dir, "pai_job_table", job_file, kJob, trace, options,
      [&](std::array<char*, 6>& f, unsigned line, const char*& column) {
        TraceJob job;
        job.line = line;
        column = "job_name";
        if (empty(f[0])) throw FieldError{"empty job name"};
        job.name = f[0];
        if (!seen.insert(job.name).second)
          throw FieldError{fmt::format("duplicate job name '{}'", job.name)};
        column = "status";
        std::string_view status = f[3] != nullptr ? f[3] : "";
        bool finished = true;
        if (status == "Failed")
          job.trace_status = 1;
        else if (status == "Running" || status == "Waiting")
          finished = false;
        else if (status != "Terminated") {
          throw FieldError{
              fmt::format("expected Terminated, Failed, Running or Waiting, got '{}'", status)};
        }
        column = "start_time";
        auto submit = parse_double_field(f[4]);
        if (!submit) throw FieldError{"missing value (the job's submit time)"};
        check_seconds(*submit);
        column = "end_time";
        auto end = parse_double_field(f[5]);
        if (end) check_seconds(*end);
        if (end && *end < *submit)
          throw FieldError{
              fmt::format("goes backwards: {} is before start_time {}", *end, *submit)};
        auto it = tasks.find(job.name);
        if (it != tasks.end()) it->second.used = true;
        if (!finished) {
          ++unfinished;
          return;
        }
        if (it == tasks.end()) {
          ++no_tasks;
          return;
        }
        JobTasks& t = it->second;
        if (t.gpu_tasks.empty()) {
          ++cpu_only;
          return;
        }
        if (t.untimed || t.workers < 1) {
          ++no_run_time;
          return;
        }
        job.submit_s = *submit;
        // Whole seconds: a task that ended in the second it started ran [0, 1) s.
        job.duration_s = t.end > t.start ? t.end - t.start : 0.5;
        job.workers = static_cast<std::uint32_t>(t.workers);
        if (t.plan_gpu < 100) {
          job.gpu_fraction = t.plan_gpu / 100.0;
        } else {
          job.devices_per_worker = static_cast<std::uint32_t>(std::ceil(t.plan_gpu / 100.0 - 1e-9));
        }
        if (static_cast<double>(job.workers) * job.devices_per_worker > kMaxTraceGpus) {
          column = "job_name";
          throw FieldError{fmt::format("the job's GPU tasks ask for {} GPUs, more than {}",
                                       static_cast<double>(job.workers) * job.devices_per_worker,
                                       kMaxTraceGpus)};
        }
        job.ps = t.ps;
        job.cpus_per_worker = t.plan_cpu / 100.0;
        job.mem_gb_per_worker = t.plan_mem;
        if (!empty(f[2])) job.user = trace.users.intern(f[2]);
        std::string type = t.mixed_types ? "" : t.gpu_type;
        if (!empty(f[1])) {
          auto r = requested_type.find(f[1]);
          if (r != requested_type.end()) type = r->second;
        }
        std::string_view device = pai2020_device_type(type);
        if (!device.empty())
          job.device_type = trace.device_types.intern(device);
        else if (!type.empty() && type != "MISC" &&
                 std::find(unmatched_types.begin(), unmatched_types.end(), type) ==
                     unmatched_types.end()) {
          unmatched_types.push_back(type);
        }
        if (t.util_count > 0) {
          double util =
              t.util_sum / static_cast<double>(t.util_count) / (100.0 * job.devices_per_worker);
          if (util > 0) job.gpu_util = std::min(util, 1.0);
        }
        trace.jobs.push_back(std::move(job));
      });

  std::size_t orphan_tasks = 0;
  for (const auto& [name, t] : tasks)
    orphan_tasks += !t.used;
  auto note = [&](std::size_t n, const char* what) {
    if (n > 0) trace.warnings.push_back(fmt::format("{}: {} {}", directory, n, what));
  };
  note(unfinished, "jobs skipped: still Running or Waiting at the end of the trace (no run time)");
  note(cpu_only, "CPU-only jobs skipped (no task with plan_gpu > 0)");
  note(no_tasks, "jobs skipped: no row in pai_task_table");
  note(no_run_time, "jobs skipped: a GPU task has no start_time or end_time");
  note(orphan_tasks, "job names in pai_task_table have no row in pai_job_table (ignored)");
  if (!unmatched_types.empty()) {
    trace.warnings.push_back(
        fmt::format("{}: GPU types not in dlsim's catalog, jobs may use any GPU: {}", directory,
                    fmt::join(unmatched_types, ", ")));
  }
  if (trace.jobs.empty() && trace.skipped == 0)
    throw InputError(directory + ": the trace has no finished GPU job");
  return trace;
}

} // namespace dlsim
