// Flows of ring all-reduce, parameter-server and input-loading patterns.
#include "sim/network/traffic.h"

namespace dlsim {

void pattern_flows(const Router& router, const TrafficRequest& r, std::vector<PatternFlow>& out) {
  const std::size_t n = r.devices.size();
  if (n < 2) {
    // Nothing to synchronize; a single device still loads its input.
  } else if (r.ps == 0) {
    for (std::size_t i = 0; i < n; ++i) {
      out.push_back(PatternFlow{router.device_vertex(r.devices[i]),
                                router.device_vertex(r.devices[(i + 1) % n]), FlowRole::kRing});
    }
  } else {
    const std::size_t workers = n / r.devices_per_worker;
    const Cluster& c = router.cluster();
    for (std::uint32_t s = 0; s < r.ps; ++s) {
      DeviceId host_of = r.devices[(s % workers) * r.devices_per_worker];
      Router::Vertex shard = router.socket_vertex(c.devices[host_of].node, 0);
      for (DeviceId d : r.devices) {
        out.push_back(PatternFlow{router.device_vertex(d), shard, FlowRole::kPush});
        out.push_back(PatternFlow{shard, router.device_vertex(d), FlowRole::kPull});
      }
    }
  }
  if (r.input) {
    for (DeviceId d : r.devices) {
      out.push_back(
          PatternFlow{router.device_socket(d), router.device_vertex(d), FlowRole::kInput});
    }
  }
}

} // namespace dlsim
