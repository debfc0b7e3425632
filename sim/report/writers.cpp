#include "sim/report/writers.h"

#include "sim/engine/error.h"
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
    body(out);
    out.flush();
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

void write_jobs_csv(std::ostream& out, const SimState& s) {
  out << "id,submit_s,first_start_s,finish_s,jct_s,queue_s,run_s,gpus,nodes,preemptions,migrations,"
         "status,model,user,queue,device_type,device_kind,devices,solo_s,slowdown\n";
  const Cluster& cluster = *s.cluster;
  const Workload& w = *s.workload;
  auto name_in = [](const std::vector<std::string>& names, std::size_t i) -> std::string_view {
    return i < names.size() ? std::string_view(names[i]) : std::string_view();
  };
  // Fields go straight into one buffer (no string per field) that is written in blocks of
  // about 64 KiB: formatting a million rows field by field into temporaries took a fifth of a
  // million-job replay (docs/performance.md). The text is the same as fmt::format("{}", v).
  fmt::memory_buffer buf;
  auto put = [&](auto v) { fmt::format_to(fmt::appender(buf), FMT_COMPILE("{}"), v); };
  auto put_secs = [&](SimTime t) { append_seconds(buf, t); };
  auto put_text = [&](std::string_view t) { buf.append(t.data(), t.data() + t.size()); };
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    const JobState& job = s.jobs[j];
    const JobSpec& spec = s.workload->jobs[j];
    SimTime submit = spec.request.submit;
    bool started = job.first_start >= 0;
    bool ended = job.end >= 0;
    append_csv_field(buf, s.workload->job_names[j]);
    buf.push_back(',');
    put_secs(submit);
    buf.push_back(',');
    if (started) put_secs(job.first_start);
    buf.push_back(',');
    if (ended) put_secs(job.end);
    buf.push_back(',');
    if (ended) put_secs(job.end - submit);
    buf.push_back(',');
    if (started) put_secs(job.first_start - submit);
    buf.push_back(',');
    put_secs(job.run_time);
    buf.push_back(',');
    put(spec.request.devices());
    buf.push_back(',');
    put(job.nodes_used);
    buf.push_back(',');
    put(job.preemptions);
    buf.push_back(',');
    put(job.migrations);
    buf.push_back(',');
    put_text(to_string(job.status));
    buf.push_back(',');
    const JobRequest& req = spec.request;
    append_csv_field(buf, name_in(w.models, req.model));
    buf.push_back(',');
    append_csv_field(buf, name_in(w.users, req.user));
    buf.push_back(',');
    append_csv_field(buf, name_in(w.queues, req.queue));
    buf.push_back(',');
    // The last allocation's type and size; nothing for a job that never got devices.
    if (started && is_host_task(req)) {
      // No device: an empty type, the kind `host`, 0 devices (docs/outputs.md).
      buf.push_back(',');
      put_text("host");
      buf.push_back(',');
      put(0);
    } else if (started) {
      const DeviceType& type = cluster.types[job.type];
      append_csv_field(buf, type.name);
      buf.push_back(',');
      put_text(to_string(type.kind));
      buf.push_back(',');
      put(job.workers * req.devices_per_worker);
    } else {
      buf.push_back(',');
      buf.push_back(',');
    }
    buf.push_back(',');
    // Solo run time: the work at the requested size on the device the trace's durations are
    // measured on (the reference device, or the required type), alone (docs/outputs.md).
    double solo_s = solo_seconds(w, j);
    append_decimal(buf, solo_s);
    buf.push_back(',');
    if (ended && job.status == JobStatus::kFinished && solo_s > 0)
      append_decimal(buf, std::round(to_seconds(job.end - submit) / solo_s * 1e6) / 1e6);
    buf.push_back('\n');
    if (buf.size() >= (std::size_t{1} << 16)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void write_summary_json(std::ostream& out, const Summary& m) {
  // Insertion-ordered, so the file's key order is fixed and diffs read well.
  nlohmann::ordered_json j;
  j["policy"] = m.policy;
  j["seed"] = m.seed;
  j["jobs"] = m.jobs;
  j["finished"] = m.finished;
  j["failed"] = m.failed;
  j["cancelled"] = m.cancelled;
  j["unfinished"] = m.unfinished;
  j["skipped_bad_jobs"] = m.skipped_bad_jobs;
  j["trace_failed"] = m.trace_failed;
  j["trace_killed"] = m.trace_killed;
  j["makespan_s"] = us_round(m.makespan_s);
  j["jct_mean_s"] = us_round(m.jct_mean_s);
  j["jct_median_s"] = us_round(m.jct_median_s);
  j["jct_p95_s"] = us_round(m.jct_p95_s);
  j["jct_p99_s"] = us_round(m.jct_p99_s);
  j["queue_mean_s"] = us_round(m.queue_mean_s);
  j["queue_median_s"] = us_round(m.queue_median_s);
  j["queue_p95_s"] = us_round(m.queue_p95_s);
  j["gpu_util_alloc"] = m.gpu_util_alloc;
  j["gpu_util_effective"] = m.gpu_util_effective;
  j["preemptions"] = m.preemptions;
  j["migrations"] = m.migrations;
  j["events"] = m.events;
  // Added after the keys above, so that a baseline's keys keep their place.
  nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
  for (const DeviceUtil& k : m.util_by_kind) {
    kinds[k.name] = {{"devices", k.devices}, {"alloc", k.alloc}, {"effective", k.effective}};
  }
  j["util_by_kind"] = kinds;
  nlohmann::ordered_json types = nlohmann::ordered_json::object();
  for (const DeviceUtil& t : m.util_by_type) {
    types[t.name] = {{"kind", to_string(t.kind)},
                     {"devices", t.devices},
                     {"alloc", t.alloc},
                     {"effective", t.effective}};
  }
  j["util_by_type"] = types;
  const Fairness& f = m.fairness;
  j["fairness"] = {{"jobs", f.jobs},
                   {"users", f.users},
                   {"jain_user_slowdown", f.jain_user_slowdown},
                   {"slowdown_mean", f.slowdown_mean},
                   {"slowdown_max", f.slowdown_max},
                   {"ftf_rho_mean", f.ftf_rho_mean},
                   {"ftf_rho_max", f.ftf_rho_max}};
  // Only with a measurement window, so that runs without one keep their bytes.
  if (m.window) {
    const WindowSummary& w = *m.window;
    j["window"] = {{"from_s", us_round(w.from_s)},
                   {"to_s", us_round(w.to_s)},
                   {"jobs", w.jobs},
                   {"finished", w.finished},
                   {"unfinished", w.unfinished},
                   {"jct_mean_s", us_round(w.jct_mean_s)},
                   {"jct_median_s", us_round(w.jct_median_s)},
                   {"jct_p95_s", us_round(w.jct_p95_s)},
                   {"jct_p99_s", us_round(w.jct_p99_s)},
                   {"queue_mean_s", us_round(w.queue_mean_s)},
                   {"queue_median_s", us_round(w.queue_median_s)},
                   {"queue_p95_s", us_round(w.queue_p95_s)},
                   {"slowdown_mean", w.slowdown_mean},
                   {"slowdown_max", w.slowdown_max}};
  }
  // Only with host tasks, so that runs without them keep their bytes.
  if (m.cpu_cores) {
    j["cpu_cores"] = {{"host_tasks", m.cpu_cores->host_tasks},
                      {"cores", m.cpu_cores->cores},
                      {"alloc", m.cpu_cores->alloc}};
  }
  out << j.dump(2) << '\n';
}

void write_timeseries_header(std::ostream& out) {
  out << "time_s,running_jobs,pending_jobs,allocated_gpus,effective_gpu_util,allocated_cpus,"
         "effective_cpu_util,allocated_xeon_phis,effective_xeon_phi_util,allocated_fpgas,"
         "effective_fpga_util,held_core_util\n";
}

void write_timeseries_row(std::ostream& out, const Sample& s) {
  constexpr auto kCpu = static_cast<std::size_t>(DeviceKind::kCpu);
  constexpr auto kPhi = static_cast<std::size_t>(DeviceKind::kXeonPhi);
  constexpr auto kFpga = static_cast<std::size_t>(DeviceKind::kFpga);
  // Into a buffer on the stack (no string per field), then one write.
  fmt::memory_buffer buf;
  append_seconds(buf, s.time);
  fmt::format_to(fmt::appender(buf), FMT_COMPILE(",{},{},{},{},{},{},{},{},{},{},{}\n"), s.running,
                 s.pending, s.allocated_gpus, s.effective_util, s.allocated_by_kind[kCpu],
                 s.effective_util_by_kind[kCpu], s.allocated_by_kind[kPhi],
                 s.effective_util_by_kind[kPhi], s.allocated_by_kind[kFpga],
                 s.effective_util_by_kind[kFpga], s.held_core_util);
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

} // namespace dlsim
