#include "sim/runtime/ps_placement.h"

#include "sim/cluster/fit.h"

#include <fmt/format.h>

#include <map>

namespace dlsim {

std::vector<NodeId> ps_nodes(const Cluster& c, std::span<const DeviceId> devices,
                             std::uint32_t devices_per_worker, std::uint32_t shards) {
  std::vector<NodeId> out;
  const std::size_t workers = devices_per_worker == 0 ? 0 : devices.size() / devices_per_worker;
  if (workers == 0) return out;
  out.reserve(shards);
  for (std::uint32_t s = 0; s < shards; ++s)
    out.push_back(c.devices[devices[(s % workers) * devices_per_worker]].node);
  return out;
}

std::optional<std::string> check_ps_cores(const View& v, JobId j, std::span<const DeviceId> devices,
                                          std::uint32_t shards, double ps_cores,
                                          double worker_cores, bool give_back) {
  const Cluster& c = v.cluster();
  const JobRequest& r = v.request(j);
  const std::uint32_t dpw = r.devices_per_worker;
  // Cores needed per node, and given back per node (a handful of nodes: a small map).
  std::map<NodeId, double> need;
  for (std::size_t i = 0; i < devices.size(); i += dpw)
    need[c.devices[devices[i]].node] += worker_cores;
  for (NodeId n : ps_nodes(c, devices, dpw, shards))
    need[n] += ps_cores;
  std::map<NodeId, double> back;
  if (give_back) {
    const JobState& job = v.state(j);
    for (std::size_t i = 0; i < job.devices.size(); i += dpw)
      back[c.devices[job.devices[i]].node] += v.worker_cores(j);
    for (NodeId n : v.ps_hosts(j))
      back[n] += v.ps_cores(j);
  }
  for (auto [n, cores] : need) {
    auto it = back.find(n);
    const double free = v.node_cpu_free(n) + (it == back.end() ? 0.0 : it->second);
    if (!fits_in(cores, free)) {
      return fmt::format("node {} has {} free CPU cores, {} needed by the job's workers ({} each) "
                         "and parameter servers ({} each)",
                         n, free, cores, worker_cores, ps_cores);
    }
  }
  return std::nullopt;
}

} // namespace dlsim
