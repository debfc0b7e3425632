#include "sim/report/timeline.h"
#include "sim/report/json_text.h"

#include <fmt/compile.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace dlsim {

void Timeline::close(JobId j, SimTime at, const Cluster& cluster) {
  Open& o = open_[j];
  if (o.since < 0) return;
  if (cluster.devices.size() <= kTimelineMaxDeviceTracks) {
    for (DeviceId d : o.devices)
      slices_.push_back(Slice{j, cluster.devices[d].node, d, o.since, at});
  } else {
    std::vector<NodeId> nodes;
    for (DeviceId d : o.devices)
      nodes.push_back(cluster.devices[d].node);
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    for (NodeId n : nodes)
      slices_.push_back(Slice{j, n, j, o.since, at});
  }
  o.since = -1;
  o.devices.clear();
}

void Timeline::open(JobId j, SimTime at, std::span<const DeviceId> devices) {
  open_[j].since = at;
  open_[j].devices.assign(devices.begin(), devices.end());
}

void Timeline::on_job_event(const JobEvent& e, const View& view) {
  if (open_.empty()) open_.resize(view.job_count());
  switch (e.action) {
  case JobAction::kBind:
    // More workers of a binding job: close what it had and reopen with all its devices.
    close(e.job, e.time, view.cluster());
    open(e.job, e.time, view.state(e.job).devices);
    return;
  case JobAction::kStart:
  case JobAction::kPack:
  case JobAction::kSlice:
  case JobAction::kResume:
  case JobAction::kMigrate:
  case JobAction::kResize:
    close(e.job, e.time, view.cluster());
    open(e.job, e.time, e.devices);
    return;
  case JobAction::kFinish:
  case JobAction::kSuspended:
  case JobAction::kCancel:
  case JobAction::kUnbind:
  case JobAction::kFail:
    close(e.job, e.time, view.cluster());
    return;
  case JobAction::kSubmit:
  case JobAction::kRunning:
  case JobAction::kSuspend:
  case JobAction::kSetShare:
  case JobAction::kCheckpoint:
    return;
  }
}

void Timeline::on_decided(const View& view) {
  const SimState& s = view.raw();
  Counter c{s.now, s.pending, s.running, s.busy_gpus,
            s.gpu_count > 0 ? s.effective_gpus / s.gpu_count : 0.0};
  if (!counters_.empty()) {
    const Counter& last = counters_.back();
    if (last.pending == c.pending && last.running == c.running &&
        last.allocated_gpus == c.allocated_gpus && last.effective_gpu_util == c.effective_gpu_util)
      return;
    if (last.time == c.time) counters_.pop_back();
  }
  counters_.push_back(c);
}

void Timeline::on_run_end(const View& view) {
  for (JobId j = 0; j < open_.size(); ++j)
    close(j, view.now(), view.cluster()); // still holding devices when the run stopped (--until)
}

namespace {

std::string json_string(std::string_view s) {
  return json_text(nlohmann::json(std::string(s)));
}

} // namespace

void Timeline::write_json(std::ostream& out, const Cluster& cluster,
                          const Workload& workload) const {
  bool per_device = cluster.devices.size() <= kTimelineMaxDeviceTracks;
  fmt::memory_buffer buf;
  auto flush = [&] {
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    buf.clear();
  };
  // pid 0 holds the counters; node n is pid n + 1.
  fmt::format_to(fmt::appender(buf),
                 "{{\"displayTimeUnit\":\"ms\",\"otherData\":{{\"time_unit\":\"1 us = 1 simulated "
                 "us\"}},\"traceEvents\":[\n");
  fmt::format_to(fmt::appender(buf),
                 "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{{\"name\":"
                 "\"cluster\"}}}}");
  for (NodeId n = 0; n < cluster.nodes.size(); ++n) {
    fmt::format_to(fmt::appender(buf),
                   ",\n{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":"
                   "\"node {}\"}}}}",
                   n + 1, n);
    fmt::format_to(fmt::appender(buf),
                   ",\n{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{},\"args\":{{"
                   "\"sort_index\":{}}}}}",
                   n + 1, n + 1);
  }
  if (per_device) {
    for (DeviceId d = 0; d < cluster.devices.size(); ++d) {
      fmt::format_to(fmt::appender(buf),
                     ",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{"
                     "\"name\":{}}}}}",
                     cluster.devices[d].node + 1, d,
                     json_string(fmt::format("device {} ({})", d, cluster.type_of(d).name)));
    }
  }
  for (const Slice& s : slices_) {
    fmt::format_to(fmt::appender(buf),
                   FMT_COMPILE(",\n{{\"name\":{},\"cat\":\"job\",\"ph\":\"X\",\"ts\":{},\"dur\":{},"
                               "\"pid\":{},\"tid\":{}}}"),
                   json_string(workload.job_names[s.job]), s.from, s.to - s.from, s.node + 1,
                   s.track);
    if (buf.size() >= (std::size_t{1} << 16)) flush();
  }
  for (const Counter& c : counters_) {
    fmt::format_to(fmt::appender(buf),
                   FMT_COMPILE(",\n{{\"name\":\"jobs\",\"ph\":\"C\",\"ts\":{},\"pid\":0,\"args\":{{"
                               "\"pending\":{},\"running\":{}}}}}"),
                   c.time, c.pending, c.running);
    fmt::format_to(fmt::appender(buf),
                   FMT_COMPILE(",\n{{\"name\":\"gpus\",\"ph\":\"C\",\"ts\":{},\"pid\":0,\"args\":{{"
                               "\"allocated\":{},\"effective_util\":{}}}}}"),
                   c.time, c.allocated_gpus, c.effective_gpu_util);
    if (buf.size() >= (std::size_t{1} << 16)) flush();
  }
  fmt::format_to(fmt::appender(buf), "\n]}}\n");
  flush();
}

} // namespace dlsim
