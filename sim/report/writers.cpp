#include "sim/report/writers.h"
#include "sim/report/json_text.h"

#include "sim/engine/error.h"
#include "sim/report/chunk_writer.h"
#include "sim/report/csv_field.h"
#include "sim/report/failure_metrics.h"
#include "sim/report/result_dir.h"
#include "sim/report/seconds_text.h"
#include "sim/report/summary_keys.h"

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
  // The metrics' keys after the run's, in the order of their list (summary_metric.h).
  for (auto it = m.metric_keys.begin(); it != m.metric_keys.end(); ++it)
    j[it.key()] = it.value();
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
