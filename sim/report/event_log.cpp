#include "sim/report/event_log.h"

#include "sim/report/csv_field.h"
#include "sim/report/seconds_text.h"
#include "sim/runtime/view.h"

#include <fmt/compile.h>

#include <algorithm>
#include <span>

namespace dlsim {

void EventLog::on_job_event(const JobEvent& e, const View& view) {
  std::uint32_t reason = 0;
  if (!e.reason.empty()) {
    reasons_.emplace_back(e.reason);
    reason = static_cast<std::uint32_t>(reasons_.size());
  }
  // A host task holds nodes, not devices: while it holds them (from its start to its finish,
  // suspension or cancellation), its row names them.
  std::span<const NodeId> hosts = e.devices.empty() ? view.hosts(e.job) : std::span<const NodeId>();
  rows_.push_back(Row{e.time, e.job, e.action, static_cast<std::uint32_t>(devices_.size()),
                      static_cast<std::uint32_t>(e.devices.size()), reason,
                      static_cast<std::uint32_t>(host_nodes_.size()),
                      static_cast<std::uint32_t>(hosts.size())});
  devices_.insert(devices_.end(), e.devices.begin(), e.devices.end());
  host_nodes_.insert(host_nodes_.end(), hosts.begin(), hosts.end());
}

void EventLog::write_csv(std::ostream& out, const Cluster& cluster,
                         const Workload& workload) const {
  out << "time_s,job,action,devices,nodes,reason\n";
  fmt::memory_buffer buf;
  auto put = [&](auto v) { fmt::format_to(fmt::appender(buf), FMT_COMPILE("{}"), v); };
  std::vector<NodeId> nodes;
  for (const Row& r : rows_) {
    append_seconds(buf, r.time);
    buf.push_back(',');
    append_csv_field(buf, workload.job_names[r.job]);
    buf.push_back(',');
    std::string_view action = to_string(r.action);
    buf.append(action.data(), action.data() + action.size());
    buf.push_back(',');
    nodes.clear();
    for (std::uint32_t i = 0; i < r.device_count; ++i) {
      DeviceId d = devices_[r.device_begin + i];
      if (i > 0) buf.push_back(' ');
      put(d);
      NodeId n = cluster.devices[d].node;
      if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
    }
    for (std::uint32_t i = 0; i < r.host_count; ++i) {
      NodeId n = host_nodes_[r.host_begin + i];
      if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
    }
    buf.push_back(',');
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (i > 0) buf.push_back(' ');
      put(nodes[i]);
    }
    buf.push_back(',');
    if (r.reason > 0) append_csv_field(buf, reasons_[r.reason - 1]);
    buf.push_back('\n');
    if (buf.size() >= (std::size_t{1} << 16)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

} // namespace dlsim
