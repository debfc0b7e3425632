// Joins the PAI 2020 tables: the task table gives each job's GPU workers, plan and run time; the
// group-tag table the requested GPU type; the sensor table the measured GPU utilization; the job
// table the submit time, user and status, and the order of the jobs.
#include "workloads/formats/pai2020.h"
#include "workloads/formats/registry.h"

#include "sim/config/path_probe.h"
#include "workloads/formats/csv_rows.h"
#include "workloads/formats/trace_fields.h"
#include "workloads/formats/trace_limits.h"

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

// The table's file in the directory: NAME.csv or NAME.csv.gz; "" when absent.
std::string table_file(const fs::path& dir, const std::string& name) {
  for (const char* ext : {".csv", ".csv.gz"}) {
    fs::path p = dir / (name + ext);
    if (is_regular_file_path(p)) return p.string();
  }
  return "";
}

// Reads one header-less table (a first line equal to the published header is skipped). Calls
// on_row(cells, row) per row; on_row throws FieldError after pointing row.column at the field.
template <std::size_t N, class OnRow>
void read_table(const fs::path& dir, const std::string& name, const std::string& file,
                const std::array<const char*, N>& columns, Trace& trace, const ReadOptions& options,
                OnRow on_row) {
  const std::string header = joined(columns);
  fs::path header_file = dir / (name + ".header");
  if (is_regular_file_path(header_file)) {
    std::string given = read_first_line(header_file.string()).value_or("");
    if (given != header) {
      throw InputError(fmt::format("{}:1: expected the published PAI 2020 columns '{}', got '{}'",
                                   header_file.string(), header, given));
    }
  }
  auto first = read_first_line(file);
  if (!first)
    throw InputError(fmt::format("{}: empty file: expected rows of {} ({})", file, name, header));
  CsvSource source{file, *first == header ? CsvHeader::kNamed : CsvHeader::kNone, N};
  for_each_csv_row(source, columns, trace, options, on_row);
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
using TaskMap = std::unordered_map<std::string, JobTasks>;

// The table files of the directory; an InputError when a required one is missing.
struct PaiFiles {
  std::string job, task, group_tag, sensor; // "" when absent (only the optional ones)
};

PaiFiles find_tables(const std::string& directory) {
  fs::path dir(directory);
  if (!is_directory_path(dir)) {
    throw InputError(directory + ": the pai2020 format reads a directory holding pai_job_table.csv "
                                 "and pai_task_table.csv (and optionally pai_group_tag_table.csv, "
                                 "pai_sensor_table.csv)");
  }
  PaiFiles files{table_file(dir, "pai_job_table"), table_file(dir, "pai_task_table"),
                 table_file(dir, "pai_group_tag_table"), table_file(dir, "pai_sensor_table")};
  for (auto [f, n] :
       {std::pair{files.job, "pai_job_table"}, std::pair{files.task, "pai_task_table"}}) {
    if (f.empty())
      throw InputError(fmt::format("{}: {}.csv (or .csv.gz) is missing", directory, n));
  }
  return files;
}

// One row of the task table added to its job's JobTasks.
void add_task(const std::array<char*, 10>& f, CsvRow& row, TaskMap& tasks) {
  row.column = "job_name";
  if (empty_field(f[0])) throw FieldError{"empty job name"};
  row.column = "inst_num";
  auto inst = parse_double_field(f[2]);
  if (!inst) throw FieldError{"missing value"};
  if (*inst < 0 || *inst != std::floor(*inst) || *inst > 1e6)
    throw FieldError{fmt::format("expected a whole number of instances, got {}", f[2])};
  row.column = "start_time";
  auto start = parse_double_field(f[4]);
  if (start) checked_seconds(*start);
  row.column = "end_time";
  auto end = parse_double_field(f[5]);
  if (end) checked_seconds(*end);
  if (start && end && *end < *start)
    throw FieldError{fmt::format("goes backwards: {} is before start_time {}", *end, *start)};
  row.column = "plan_cpu";
  double cpu = optional_non_negative(f[6]).value_or(0);
  row.column = "plan_mem";
  double mem = optional_non_negative(f[7]).value_or(0);
  row.column = "plan_gpu";
  double gpu = parse_double_field(f[8]).value_or(0);
  if (gpu < 0 || gpu > 6400)
    throw FieldError{fmt::format("must be 0 to 6400 percent, got {}", gpu)};
  JobTasks& t = tasks[f[0]];
  if (gpu == 0) {
    if (f[1] != nullptr && std::string_view(f[1]) == "ps")
      t.ps += static_cast<std::uint32_t>(*inst);
    return;
  }
  t.workers += *inst;
  t.plan_gpu = std::max(t.plan_gpu, gpu);
  t.plan_cpu = std::max(t.plan_cpu, cpu);
  t.plan_mem = std::max(t.plan_mem, mem);
  if (!start || !end) t.untimed = true;
  if (start) t.start = std::min(t.start, *start);
  if (end) t.end = std::max(t.end, *end);
  std::string type = empty_field(f[9]) ? "" : f[9];
  if (t.gpu_tasks.empty())
    t.gpu_type = type;
  else if (type != t.gpu_type)
    t.mixed_types = true;
  t.gpu_tasks.emplace_back(f[1] != nullptr ? f[1] : "");
}

// One row of the sensor table: its gpu_wrk_util added to the job's GPU task it measures.
void add_sensor(const std::array<char*, 16>& f, CsvRow& row, TaskMap& tasks) {
  row.column = "job_name";
  if (empty_field(f[0])) throw FieldError{"empty job name"};
  row.column = "gpu_wrk_util";
  auto util = optional_non_negative(f[7]);
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
}

// Why jobs of the job table are not replayed, for the warnings at the end.
struct PaiCounts {
  std::size_t unfinished = 0, cpu_only = 0, no_tasks = 0, no_run_time = 0;
  std::vector<std::string> unmatched_types;
};

// The job's GPU type: the one its group tag requests, else its GPU tasks' common type.
void set_device_type(const char* inst_id, const JobTasks& t,
                     const std::unordered_map<std::string, std::string>& requested_type,
                     Trace& trace, TraceJob& job, PaiCounts& counts) {
  std::string type = t.mixed_types ? "" : t.gpu_type;
  if (!empty_field(inst_id)) {
    auto r = requested_type.find(inst_id);
    if (r != requested_type.end()) type = r->second;
  }
  std::string_view device = pai2020_device_type(type);
  auto& unmatched = counts.unmatched_types;
  if (!device.empty()) {
    job.device_type = trace.device_types.intern(device);
    // The task table's gpu_type is where the job ran; a requested type that differs from it
    // leaves the run time on the reference device.
    job.observed_on_device_type = !t.mixed_types && pai2020_device_type(t.gpu_type) == device;
  } else if (!type.empty() && type != "MISC" &&
             std::find(unmatched.begin(), unmatched.end(), type) == unmatched.end())
    unmatched.push_back(type);
}

// The job's gang, run time and resources from its GPU tasks.
void set_from_tasks(const JobTasks& t, CsvRow& row, TraceJob& job) {
  // Whole seconds: a task that ended in the second it started ran [0, 1) s.
  job.duration_s = t.end > t.start ? t.end - t.start : 0.5;
  job.workers = static_cast<std::uint32_t>(t.workers);
  if (t.plan_gpu < 100)
    job.gpu_share_min = t.plan_gpu / 100.0;
  else
    job.devices_per_worker = static_cast<std::uint32_t>(std::ceil(t.plan_gpu / 100.0 - 1e-9));
  if (static_cast<double>(job.workers) * job.devices_per_worker > kMaxTraceGpus) {
    row.column = "job_name";
    throw FieldError{fmt::format("the job's GPU tasks ask for {} GPUs, more than {}",
                                 static_cast<double>(job.workers) * job.devices_per_worker,
                                 kMaxTraceGpus)};
  }
  job.ps = t.ps;
  job.cpus_per_worker = t.plan_cpu / 100.0;
  job.mem_gb_per_worker = t.plan_mem;
  if (t.util_count > 0) {
    double util = t.util_sum / static_cast<double>(t.util_count) / (100.0 * job.devices_per_worker);
    if (util > 0) job.gpu_util = std::min(util, 1.0);
  }
}

// The job's status, submit and end time; returns false for a job still Running or Waiting.
bool read_job_times(const std::array<char*, 6>& f, CsvRow& row, TraceJob& job) {
  row.column = "status";
  std::string_view status = f[3] != nullptr ? f[3] : "";
  bool finished = true;
  if (status == "Failed")
    job.trace_status = 1;
  else if (status == "Running" || status == "Waiting")
    finished = false;
  else if (status != "Terminated")
    throw FieldError{
        fmt::format("expected Terminated, Failed, Running or Waiting, got '{}'", status)};
  row.column = "start_time";
  auto submit = parse_double_field(f[4]);
  if (!submit) throw FieldError{"missing value (the job's submit time)"};
  job.submit_s = checked_seconds(*submit);
  row.column = "end_time";
  auto end = parse_double_field(f[5]);
  if (end) checked_seconds(*end);
  if (end && *end < *submit)
    throw FieldError{fmt::format("goes backwards: {} is before start_time {}", *end, *submit)};
  return finished;
}

void warn_about_left_out(Trace& trace, const std::string& directory, const PaiCounts& counts,
                         const TaskMap& tasks) {
  std::size_t orphan_tasks = 0;
  for (const auto& [name, t] : tasks)
    orphan_tasks += !t.used;
  auto note = [&](std::size_t n, const char* what) {
    if (n > 0) trace.warnings.push_back(fmt::format("{}: {} {}", directory, n, what));
  };
  note(counts.unfinished,
       "jobs skipped: still Running or Waiting at the end of the trace (no run time)");
  note(counts.cpu_only, "CPU-only jobs skipped (no task with plan_gpu > 0)");
  note(counts.no_tasks, "jobs skipped: no row in pai_task_table");
  note(counts.no_run_time, "jobs skipped: a GPU task has no start_time or end_time");
  note(orphan_tasks, "job names in pai_task_table have no row in pai_job_table (ignored)");
  if (!counts.unmatched_types.empty()) {
    trace.warnings.push_back(
        fmt::format("{}: GPU types not in dlsim's catalog, jobs may use any GPU: {}", directory,
                    fmt::join(counts.unmatched_types, ", ")));
  }
}

} // namespace

Trace read_pai2020_trace(const std::string& directory, const ReadOptions& options) {
  Trace trace;
  const PaiFiles files = find_tables(directory);
  const fs::path dir(directory);
  // Jobs are rows of the job table: errors found later, when the trace is resolved against the
  // cluster, name that file and line.
  trace.file = files.job;
  TaskMap tasks;
  read_table(dir, "pai_task_table", files.task, kTask, trace, options,
             [&](const auto& f, CsvRow& row) { add_task(f, row, tasks); });
  // Group tags: the GPU type the user asked for, by inst_id (the job id).
  std::unordered_map<std::string, std::string> requested_type;
  if (!files.group_tag.empty()) {
    read_table(dir, "pai_group_tag_table", files.group_tag, kGroupTag, trace, options,
               [&](const auto& f, CsvRow& row) {
                 row.column = "inst_id";
                 if (empty_field(f[0])) throw FieldError{"empty inst_id"};
                 if (!empty_field(f[2])) requested_type.emplace(f[0], f[2]);
               });
  }
  if (!files.sensor.empty()) {
    read_table(dir, "pai_sensor_table", files.sensor, kSensor, trace, options,
               [&](const auto& f, CsvRow& row) { add_sensor(f, row, tasks); });
  }
  PaiCounts counts;
  std::unordered_set<std::string> seen;
  read_table(dir, "pai_job_table", files.job, kJob, trace, options,
             [&](const auto& f, CsvRow& row) {
               TraceJob job;
               job.line = row.line;
               row.column = "job_name";
               if (empty_field(f[0])) throw FieldError{"empty job name"};
               const std::string name = f[0];
               if (!seen.insert(name).second)
                 throw FieldError{fmt::format("duplicate job name '{}'", name)};
               bool finished = read_job_times(f, row, job);
               auto it = tasks.find(name);
               if (it != tasks.end()) it->second.used = true;
               if (!finished) return void(++counts.unfinished);
               if (it == tasks.end()) return void(++counts.no_tasks);
               const JobTasks& t = it->second;
               if (t.gpu_tasks.empty()) return void(++counts.cpu_only);
               if (t.untimed || t.workers < 1) return void(++counts.no_run_time);
               set_from_tasks(t, row, job);
               if (!empty_field(f[2])) job.user = trace.users.intern(f[2]);
               set_device_type(f[1], t, requested_type, trace, job, counts);
               trace.add(job, name);
             });
  warn_about_left_out(trace, directory, counts, tasks);
  if (trace.jobs.empty() && trace.skipped == 0)
    throw InputError(directory + ": the trace has no finished GPU job");
  return trace;
}

std::vector<std::string> pai2020_table_files(const std::string& directory) {
  PaiFiles files = find_tables(directory);
  std::vector<std::string> out{files.job, files.task};
  for (const std::string& f : {files.group_tag, files.sensor}) {
    if (!f.empty()) out.push_back(f);
  }
  return out;
}

// The format's entry in the list of workloads/formats/format_list.h.
TraceFormat pai2020_format() {
  return {"pai2020",
          "Alibaba PAI 2020: a directory of pai_job_table.csv, pai_task_table.csv (+ group tag, "
          "sensor)",
          &read_pai2020_trace, &pai2020_table_files};
}

} // namespace dlsim
