#include "sim/report/timeline.h"
#include "sim/report/json_text.h"

#include <fmt/compile.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <string>

namespace dlsim {

void Timeline::close(JobId j, SimTime at, const Cluster& cluster) {
  Open& o = open_[j];
  if (o.since < 0) return;
  const auto gpus = static_cast<std::uint32_t>(o.devices.size());
  auto slice = [&](NodeId node, std::uint32_t track) {
    slices_.push_back(
        Slice{j, node, track, gpus, o.since, at, o.share_min, o.share_max, o.sharing});
  };
  if (cluster.devices.size() <= kTimelineMaxDeviceTracks) {
    for (DeviceId d : o.devices)
      slice(cluster.devices[d].node, d);
  } else {
    std::vector<NodeId> nodes;
    for (DeviceId d : o.devices)
      nodes.push_back(cluster.devices[d].node);
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    for (NodeId n : nodes)
      slice(n, j);
  }
  o.since = -1;
  o.devices.clear();
}

void Timeline::open(JobId j, SimTime at, std::span<const DeviceId> devices, const View& view) {
  Open& o = open_[j];
  o.since = at;
  o.devices.assign(devices.begin(), devices.end());
  const JobState& s = view.state(j);
  o.sharing = s.sliced ? Sharing::kTimeSliced : s.packed ? Sharing::kPacked : Sharing::kExclusive;
  o.share_min = o.sharing == Sharing::kPacked ? static_cast<float>(view.share_min(j)) : 1.0F;
  o.share_max = o.sharing == Sharing::kPacked ? static_cast<float>(view.share_max(j)) : 1.0F;
}

void Timeline::on_job_event(const JobEvent& e, const View& view) {
  if (open_.empty()) open_.resize(view.job_count());
  switch (e.action) {
  case JobAction::kBind:
    // More workers of a binding job: close what it had and reopen with all its devices.
    close(e.job, e.time, view.cluster());
    open(e.job, e.time, view.state(e.job).devices, view);
    return;
  case JobAction::kStart:
  case JobAction::kPack:
  case JobAction::kSlice:
  case JobAction::kResume:
  case JobAction::kMigrate:
  case JobAction::kResize:
    close(e.job, e.time, view.cluster());
    open(e.job, e.time, e.devices, view);
    return;
  case JobAction::kSetShare:
    // Same devices, new shares: a new slice, so that each slice's args hold for all of it.
    if (open_[e.job].since < 0) return;
    close(e.job, e.time, view.cluster());
    open(e.job, e.time, e.devices, view);
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

std::string_view name_in(const std::vector<std::string>& names, std::size_t i) {
  return i < names.size() ? std::string_view(names[i]) : std::string_view();
}

} // namespace

std::vector<std::uint32_t> Timeline::share_tracks(std::size_t& tracks_per_key) const {
  // Greedy interval partitioning per (node, track): slices by start, each onto the lowest share
  // track that is free by then. It uses as many share tracks as slices overlap at most, and no
  // two slices on one share track overlap (touching ends are fine: one ends as the next begins).
  std::vector<std::uint32_t> order(slices_.size());
  for (std::uint32_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const Slice& x = slices_[a];
    const Slice& y = slices_[b];
    if (x.node != y.node) return x.node < y.node;
    if (x.track != y.track) return x.track < y.track;
    if (x.from != y.from) return x.from < y.from;
    return a < b;
  });
  std::vector<std::uint32_t> lane(slices_.size(), 0);
  std::vector<SimTime> free_at; // by share track, of the current (node, track)
  tracks_per_key = 1;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Slice& s = slices_[order[k]];
    if (k == 0 || s.node != slices_[order[k - 1]].node || s.track != slices_[order[k - 1]].track)
      free_at.clear();
    std::uint32_t l = 0;
    while (l < free_at.size() && free_at[l] > s.from)
      ++l;
    if (l == free_at.size()) free_at.push_back(s.to);
    free_at[l] = s.to;
    lane[order[k]] = l;
    tracks_per_key = std::max(tracks_per_key, free_at.size());
  }
  return lane;
}

namespace {

// The file's head and one process per node: pid 0 holds the counters; node n is pid n + 1.
void write_header_and_processes(fmt::memory_buffer& buf, const Cluster& cluster) {
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
  write_header_and_processes(buf, cluster);
  // Share track l > 0 of track t is tid t + l * stride, after every track's first; sort indexes
  // keep a device's share tracks together, in order, under it.
  std::size_t lanes = 1;
  const std::vector<std::uint32_t> lane = share_tracks(lanes);
  std::uint64_t stride = per_device ? cluster.devices.size() : workload.jobs.size();
  for (const Slice& s : slices_)
    stride = std::max<std::uint64_t>(stride, std::uint64_t{s.track} + 1);
  auto tid_of = [&](std::uint64_t track, std::uint64_t l) { return track + l * stride; };
  if (per_device) {
    // Which share tracks each device used beyond its first.
    std::vector<std::uint32_t> used(cluster.devices.size(), 1);
    for (std::size_t i = 0; i < slices_.size(); ++i)
      used[slices_[i].track] = std::max(used[slices_[i].track], lane[i] + 1);
    for (DeviceId d = 0; d < cluster.devices.size(); ++d) {
      for (std::uint32_t l = 0; l < used[d]; ++l) {
        std::string name = fmt::format("device {} ({})", d, cluster.type_of(d).name);
        if (used[d] > 1) name += fmt::format(" share {}", l + 1);
        fmt::format_to(fmt::appender(buf),
                       ",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},"
                       "\"args\":{{\"name\":{}}}}}",
                       cluster.devices[d].node + 1, tid_of(d, l), json_string(name));
        fmt::format_to(fmt::appender(buf),
                       ",\n{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{},\"tid\":{},"
                       "\"args\":{{\"sort_index\":{}}}}}",
                       cluster.devices[d].node + 1, tid_of(d, l), std::uint64_t{d} * lanes + l);
      }
    }
  }
  static constexpr std::array<std::string_view, 3> kSharing{"exclusive", "packed", "time-sliced"};
  for (std::size_t i = 0; i < slices_.size(); ++i) {
    const Slice& s = slices_[i];
    const JobRequest& r = workload.jobs[s.job].request;
    fmt::format_to(
        fmt::appender(buf),
        FMT_COMPILE(",\n{{\"name\":{},\"cat\":\"job\",\"ph\":\"X\",\"ts\":{},\"dur\":{},"
                    "\"pid\":{},\"tid\":{},\"args\":{{\"job\":{},\"model\":{},\"user\":{},"
                    "\"gpus\":{},\"sharing\":\"{}\",\"share_min\":{},\"share_max\":{}}}}}"),
        json_string(workload.job_names[s.job]), s.from, s.to - s.from, s.node + 1,
        tid_of(s.track, lane[i]), json_string(workload.job_names[s.job]),
        json_string(name_in(workload.models, r.model)),
        json_string(name_in(workload.users, r.user)), s.gpus,
        kSharing[static_cast<std::size_t>(s.sharing)], s.share_min, s.share_max);
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
