// Growing elastic jobs onto idle devices, and shrinking them back.
#include "policies/gandiva/grow_shrink.h"

#include "policies/gandiva/affinity.h"

#include <algorithm>
#include <tuple>

namespace dlsim::gandiva {

namespace {

// A single running job below its largest size, settled.
bool may_grow(const View& view, const Group& g) {
  if (g.members.size() != 1 || g.converting) return false;
  const JobState& s = view.state(g.members[0]);
  return s.status == JobStatus::kRunning && s.workers < view.request(g.members[0]).max_workers;
}

// A job grown above its request, alone in its group.
bool grown(const View& /*view*/, const Group& g) {
  return g.grown && g.members.size() == 1;
}

} // namespace

void grow(Control& control, State& st) {
  for (std::uint32_t gid : st.groups_where(control, State::kGrow, may_grow)) {
    Group& g = st.groups.at(gid);
    JobId m = g.members[0];
    const JobState& s = control.state(m);
    const JobRequest& req = control.request(m);
    const std::uint32_t dpw = req.devices_per_worker;
    // Nodes the job is on first (locality), then by affinity and most free devices.
    std::vector<std::tuple<int, long, NodeId>> order;
    std::vector<NodeId> own_nodes;
    for (DeviceId d : s.devices)
      own_nodes.push_back(control.cluster().devices[d].node);
    for (NodeId n = 0; n < control.cluster().nodes.size(); ++n) {
      if (control.free().free_on(n, g.type) < dpw) continue; // fewer still once reserved
      auto free = static_cast<long>(free_count(control, st, n, g.type));
      if (free < static_cast<long>(dpw)) continue;
      bool own = std::find(own_nodes.begin(), own_nodes.end(), n) != own_nodes.end();
      order.emplace_back(own ? -1 : affinity_rank(control, st, n, g.cls), -free, n);
    }
    std::sort(order.begin(), order.end());
    std::vector<DeviceId> extra;
    std::uint32_t left = req.max_workers - s.workers;
    for (const auto& [rank, neg_free, n] : order) {
      if (left == 0) break;
      auto free = free_on(control, st, n, g.type);
      std::uint32_t take = std::min({left, static_cast<std::uint32_t>(free.size()) / dpw,
                                     workers_by_resources(control, m, n)});
      extra.insert(extra.end(), free.begin(),
                   free.begin() + static_cast<std::ptrdiff_t>(take) * dpw);
      left -= take;
    }
    if (extra.empty()) continue;
    std::vector<DeviceId> devices = s.devices.to_vector();
    devices.insert(devices.end(), extra.begin(), extra.end());
    control.resize(m, devices);
    st.set_devices(gid, devices);
    g.grown = true;
  }
}

void shrink_grown(Control& control, State& st) {
  for (std::uint32_t gid : st.groups_where(control, State::kGrown, grown)) {
    Group& g = st.groups.at(gid);
    JobId m = g.members[0];
    if (control.state(m).status != JobStatus::kRunning) continue; // resizing: next time
    const JobRequest& req = control.request(m);
    // The devices it held before growing come first in its list (grow appends).
    std::vector<DeviceId> base(g.devices.begin(),
                               g.devices.begin() + static_cast<std::ptrdiff_t>(req.devices()));
    control.resize(m, base);
    st.set_devices(gid, base);
    g.grown = false;
  }
}

} // namespace dlsim::gandiva
