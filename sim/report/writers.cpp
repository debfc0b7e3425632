#include "sim/report/writers.h"
#include "sim/report/json_text.h"

#include "sim/engine/error.h"
#include "sim/report/chunk_writer.h"
#include "sim/report/csv_field.h"
#include "sim/report/result_dir.h"
#include "sim/report/seconds_text.h"

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace dlsim {

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& body) {
  remove_stale_temporaries(path);
  std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw InputError(
          fmt::format("{}: cannot write (does the directory exist and is it writable?)", tmp));
    try {
      body(out);
    } catch (...) {
      // An error while writing (bad input found midway): no half-written temporary is left.
      out.close();
      std::remove(tmp.c_str());
      throw;
    }
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(fmt::format("{}: write failed (disk full?)", tmp));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw InputError(fmt::format("{}: cannot rename into place: {}", path, ec.message()));
  }
}

namespace {

// Times to the microsecond, the simulator's resolution: 6354.296, not 6354.296000078.
double us_round(double s) {
  return std::round(s * 1e6) / 1e6;
}

} // namespace

namespace {

std::string_view name_in(const std::vector<std::string>& names, std::size_t i) {
  return i < names.size() ? std::string_view(names[i]) : std::string_view();
}

char* put_text(char* p, std::string_view t) {
  if (!t.empty()) std::memcpy(p, t.data(), t.size());
  return p + t.size();
}

// The device_type and device_kind columns of each type, once: "V100,gpu".
std::vector<std::string> type_columns_of(const Cluster& cluster) {
  std::vector<std::string> type_columns;
  type_columns.reserve(cluster.types.size());
  for (const DeviceType& type : cluster.types) {
    std::string col(csv_field_max(type.name), '\0');
    col.resize(static_cast<std::size_t>(write_csv_field(col.data(), type.name) - col.data()));
    col += ',';
    col += to_string(type.kind);
    type_columns.push_back(std::move(col));
  }
  return type_columns;
}

// The texts of job j's row, and whether it started and ended.
struct JobTexts {
  std::string_view id, status, model, user, queue, device;
  bool started = false, ended = false, host = false;
};
JobTexts job_texts(const SimState& s, const std::vector<std::string>& type_columns, std::size_t j) {
  const Workload& w = *s.workload;
  const JobState& job = s.jobs[j];
  const JobRequest& req = w.jobs[j].request;
  JobTexts t;
  t.started = job.first_start >= 0;
  t.ended = job.end >= 0;
  t.id = w.job_names[j];
  t.status = to_string(job.status);
  t.model = name_in(w.models, req.model);
  t.user = name_in(w.users, req.user);
  t.queue = name_in(w.queues, req.queue);
  // The last allocation's type and size; nothing for a job that never got devices, and for a
  // host task an empty type, the kind `host` and 0 devices (docs/outputs.md).
  t.host = t.started && is_host_task(req);
  t.device = !t.started ? std::string_view(",")
             : t.host   ? std::string_view(",host")
                        : std::string_view(type_columns[job.type]);
  return t;
}

// submit_s to run_s.
char* put_job_times(char* p, const SimState& s, const RunResult& result, std::size_t j,
                    const JobTexts& t) {
  const JobState& job = s.jobs[j];
  const SimTime submit = s.workload->jobs[j].request.submit;
  p = write_seconds(p, submit);
  *p++ = ',';
  if (t.started) p = write_seconds(p, job.first_start);
  *p++ = ',';
  if (t.ended) p = write_seconds(p, job.end);
  *p++ = ',';
  if (t.ended) p = write_seconds(p, job.end - submit);
  *p++ = ',';
  // Queueing delay: time submitted, not finished and without progress, up to the finish (or
  // cancel), or so far for a job still live (docs/outputs.md#queueing-delay).
  if (job.status != JobStatus::kFuture) {
    const SimTime until = t.ended ? job.end : result.end;
    p = write_seconds(p, until - submit - progress_time(s, result, static_cast<JobId>(j)));
  }
  *p++ = ',';
  return write_seconds(p, job.run_time);
}

// gpus to the last column, without the line's end.
char* put_job_rest(char* p, const SimState& s, std::size_t j, const JobTexts& t) {
  const JobState& job = s.jobs[j];
  const JobRequest& req = s.workload->jobs[j].request;
  p = write_uint(p, req.devices());
  *p++ = ',';
  p = write_uint(p, job.nodes_used);
  *p++ = ',';
  p = write_uint(p, job.preemptions);
  *p++ = ',';
  p = write_uint(p, job.migrations);
  *p++ = ',';
  p = put_text(p, t.status);
  *p++ = ',';
  p = write_csv_field(p, t.model);
  *p++ = ',';
  p = write_csv_field(p, t.user);
  *p++ = ',';
  p = write_csv_field(p, t.queue);
  *p++ = ',';
  p = put_text(p, t.device);
  *p++ = ',';
  if (t.host) {
    *p++ = '0';
  } else if (t.started) {
    const std::uint32_t devices = job.workers * req.devices_per_worker; // as it always was
    p = write_uint(p, devices);
  }
  *p++ = ',';
  // Solo run time: the work at the requested size on the device the trace's durations are
  // measured on (the reference device, or the required type), alone (docs/outputs.md).
  const double solo_s = solo_seconds(*s.workload, j);
  p = write_decimal(p, solo_s);
  *p++ = ',';
  if (t.ended && job.status == JobStatus::kFinished && solo_s > 0)
    p = write_decimal(p, std::round(to_seconds(job.end - req.submit) / solo_s * 1e6) / 1e6);
  if (s.failures.any()) p = write_failure_columns(p, s.failures.jobs[j]);
  return p;
}

} // namespace

void write_jobs_csv(std::ostream& out, const SimState& s, const RunResult& result) {
  out << "id,submit_s,first_start_s,finish_s,jct_s,queue_s,run_s,gpus,nodes,preemptions,migrations,"
         "status,model,user,queue,device_type,device_kind,devices,solo_s,slowdown";
  // Failures and checkpoints add columns at the end (failure_metrics.h); other runs keep their
  // bytes.
  const bool failures = s.failures.any();
  if (failures) out << kFailureColumns;
  out << '\n';
  const std::vector<std::string> type_columns = type_columns_of(*s.cluster);
  // Each row is formatted straight into the writer's buffer, which it sizes once for the row's
  // longest possible text: 13 numbers, 20 separators and the texts. Formatting field by field
  // through fmt's growing buffer took a tenth of a million-job replay (docs/performance.md). The
  // text is the same as fmt::format("{}", v) for every value.
  const std::size_t row_fixed = 13 * kMaxNumberChars + 20 + (failures ? kFailureColumnsChars : 0);
  ChunkWriter writer(out);
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    const JobTexts t = job_texts(s, type_columns, j);
    char* p =
        writer.row(row_fixed + csv_field_max(t.id) + t.status.size() + csv_field_max(t.model) +
                   csv_field_max(t.user) + csv_field_max(t.queue) + t.device.size());
    p = write_csv_field(p, t.id);
    *p++ = ',';
    p = put_job_times(p, s, result, j, t);
    *p++ = ',';
    p = put_job_rest(p, s, j, t);
    *p++ = '\n';
    writer.end_row(p);
  }
  writer.flush();
}

namespace {

nlohmann::ordered_json util_json(const std::vector<DeviceUtil>& by_kind) {
  nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
  for (const DeviceUtil& k : by_kind) {
    kinds[k.name] = {{"devices", k.devices}, {"alloc", k.alloc}, {"effective", k.effective}};
  }
  return kinds;
}

nlohmann::ordered_json util_by_type_json(const std::vector<DeviceUtil>& by_type) {
  nlohmann::ordered_json types = nlohmann::ordered_json::object();
  for (const DeviceUtil& t : by_type) {
    types[t.name] = {{"kind", to_string(t.kind)},
                     {"devices", t.devices},
                     {"alloc", t.alloc},
                     {"effective", t.effective}};
  }
  return types;
}

nlohmann::ordered_json fairness_json(const Fairness& f) {
  nlohmann::ordered_json fair;
  fair["jobs"] = f.jobs;
  fair["users"] = f.users;
  // Only with two users or more: with one it is 1 by the formula (docs/outputs.md#fairness).
  if (f.jain_user_slowdown) fair["jain_user_slowdown"] = *f.jain_user_slowdown;
  fair["slowdown_mean"] = f.slowdown_mean;
  fair["slowdown_max"] = f.slowdown_max;
  fair["ftf_rho_mean"] = f.ftf_rho_mean;
  fair["ftf_rho_max"] = f.ftf_rho_max;
  return fair;
}

// The JCT and queueing-delay statistics, in the order summary.json gives them for the whole run
// and for its window (Summary and WindowSummary name them alike).
template <class Stats>
void put_delay_stats(nlohmann::ordered_json& o, const Stats& x) {
  o["jct_mean_s"] = us_round(x.jct_mean_s);
  o["jct_median_s"] = us_round(x.jct_median_s);
  o["jct_p95_s"] = us_round(x.jct_p95_s);
  o["jct_p99_s"] = us_round(x.jct_p99_s);
  o["queue_mean_s"] = us_round(x.queue_mean_s);
  o["queue_median_s"] = us_round(x.queue_median_s);
  o["queue_p95_s"] = us_round(x.queue_p95_s);
}

nlohmann::ordered_json window_json(const WindowSummary& w) {
  nlohmann::ordered_json o;
  o["from_s"] = us_round(w.from_s);
  o["to_s"] = us_round(w.to_s);
  o["jobs"] = w.jobs;
  o["finished"] = w.finished;
  o["unfinished"] = w.unfinished;
  if (w.unfinished > 0) {
    o["jct_censored"] = w.jct_censored;
    o["queue_censored"] = w.queue_censored;
  }
  put_delay_stats(o, w);
  o["slowdown_mean"] = w.slowdown_mean;
  o["slowdown_max"] = w.slowdown_max;
  return o;
}

nlohmann::ordered_json failures_json(const FailureSummary& f) {
  return {{"components_failed", f.components_failed},
          {"interruptions", f.interruptions},
          {"jobs_interrupted", f.jobs_interrupted},
          {"checkpoints", f.checkpoints},
          {"checkpoint_s", us_round(f.checkpoint_s)},
          {"work_lost_s", us_round(f.work_lost_s)},
          {"work_lost_gpu_s", us_round(f.work_lost_gpu_s)},
          {"restart_s", us_round(f.restart_s)},
          {"restart_gpu_s", us_round(f.restart_gpu_s)},
          {"goodput_lost_gpu_s", us_round(f.goodput_lost_gpu_s)},
          {"ettr", f.ettr},
          {"gpu_availability", f.gpu_availability}};
}

nlohmann::ordered_json gpu_sharing_json(const Summary::GpuSharing& g) {
  return {{"capacity_gpus", g.capacity_gpus},       {"arrived_gpus", g.arrived_gpus},
          {"allocated_gpus", g.allocated_gpus},     {"frag_gpus", g.frag_gpus},
          {"alloc_pct_at_100", g.alloc_pct_at_100}, {"alloc_pct_at_130", g.alloc_pct_at_130},
          {"frag_pct_at_100", g.frag_pct_at_100},   {"unplaced_jobs", g.unplaced_jobs},
          {"typical_shapes", g.typical_shapes}};
}

// The run's counts and times: the keys before the per-kind utilization.
void put_run_keys(nlohmann::ordered_json& j, const Summary& m) {
  j["policy"] = m.policy;
  j["seed"] = m.seed;
  j["jobs"] = m.jobs;
  j["finished"] = m.finished;
  j["failed"] = m.failed;
  j["cancelled"] = m.cancelled;
  j["unfinished"] = m.unfinished;
  // Only with unfinished jobs, so that complete runs keep their bytes: which statistics below
  // are lower bounds (unfinished jobs counted at their time so far), and a deadlock's time.
  if (m.unfinished > 0) {
    j["jct_censored"] = m.jct_censored;
    j["queue_censored"] = m.queue_censored;
    j["makespan_censored"] = m.makespan_censored;
  }
  if (m.deadlocked_at_s) j["deadlocked_at_s"] = us_round(*m.deadlocked_at_s);
  j["skipped_bad_jobs"] = m.skipped_bad_jobs;
  j["trace_failed"] = m.trace_failed;
  j["trace_killed"] = m.trace_killed;
  j["makespan_s"] = us_round(m.makespan_s);
  put_delay_stats(j, m);
  j["gpu_util_alloc"] = m.gpu_util_alloc;
  j["gpu_util_effective"] = m.gpu_util_effective;
  j["gpu_util_busy"] = m.gpu_util_busy;
  // Only when some job's utilization is assumed, so that other runs keep their bytes.
  if (m.util_assumed_jobs > 0) j["util_assumed_jobs"] = m.util_assumed_jobs;
  j["preemptions"] = m.preemptions;
  j["migrations"] = m.migrations;
  j["events"] = m.events;
}

} // namespace

void write_summary_json(std::ostream& out, const Summary& m) {
  // Insertion-ordered, so the file's key order is fixed and diffs read well.
  nlohmann::ordered_json j;
  put_run_keys(j, m);
  // Added after the keys above, so that a baseline's keys keep their place.
  j["util_by_kind"] = util_json(m.util_by_kind);
  j["util_by_type"] = util_by_type_json(m.util_by_type);
  j["fairness"] = fairness_json(m.fairness);
  // Only with a measurement window, so that runs without one keep their bytes.
  if (m.window) j["window"] = window_json(*m.window);
  // Only with failures or checkpoints (docs/failures.md#measures).
  if (m.failures) j["failures"] = failures_json(*m.failures);
  // Only with host tasks, so that runs without them keep their bytes.
  if (m.gpu_sharing) j["gpu_sharing"] = gpu_sharing_json(*m.gpu_sharing);
  if (m.cpu_cores) {
    j["cpu_cores"] = {{"host_tasks", m.cpu_cores->host_tasks},
                      {"cores", m.cpu_cores->cores},
                      {"alloc", m.cpu_cores->alloc}};
  }
  out << json_text(j, 2) << '\n';
}

void write_timeseries_header(std::ostream& out) {
  out << "time_s,running_jobs,pending_jobs";
  for (const DeviceKindNames& k : kDeviceKindNames) {
    out << ",allocated_" << k.devices_col << ",effective_" << k.util_col << "_util";
  }
  out << ",held_core_util,busy_gpu_util\n";
}

void write_timeseries_row(std::ostream& out, const Sample& s) {
  constexpr auto kGpu = static_cast<std::size_t>(DeviceKind::kGpu);
  // Into a buffer on the stack (no string per field), then one write.
  fmt::memory_buffer buf;
  append_seconds(buf, s.time);
  fmt::format_to(fmt::appender(buf), FMT_COMPILE(",{},{},{},{}"), s.running, s.pending,
                 s.allocated_gpus, s.effective_util);
  // The GPU kind's columns come from the GPU meters (allocated_gpus, effective_util), the
  // other kinds' from the per-kind arrays, in the order of kDeviceKindNames.
  for (std::size_t k = 0; k < kDeviceKinds; ++k) {
    if (k == kGpu) continue;
    fmt::format_to(fmt::appender(buf), FMT_COMPILE(",{},{}"), s.allocated_by_kind[k],
                   s.effective_util_by_kind[k]);
  }
  fmt::format_to(fmt::appender(buf), FMT_COMPILE(",{},{}\n"), s.held_core_util, s.busy_util);
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

} // namespace dlsim
