// Parameter servers that hold CPU cores on nodes (docs/scaling.md#parameter-servers-that-hold-
// cores): a job with ps > 0 and ps_cpus > 0 places shard s on the node of its worker s mod w (the
// node the scaling and network models put it on), where it holds its cores while the job holds
// its devices. A placement whose nodes lack the cores of the workers and shards they would hold
// is refused, so the job waits.
#pragma once

#include "sim/runtime/view.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dlsim {

// Whether job r's parameter servers hold cores on nodes: a device job with PS and ps_cpus.
constexpr bool holds_ps_cores(const JobRequest& r) {
  return r.ps > 0 && r.ps_cpus > 0 && !is_host_task(r);
}

// Node of each of `shards` shards for workers on `devices` (devices_per_worker per worker):
// shard s on worker s mod w's node.
std::vector<NodeId> ps_nodes(const Cluster& c, std::span<const DeviceId> devices,
                             std::uint32_t devices_per_worker, std::uint32_t shards);

// Why job j's workers on `devices`, `worker_cores` cores each, and its `shards` shards of
// `ps_cores` cores each, do not fit in the nodes' free cores; nullopt when they do. With
// give_back, what j holds now (its devices' workers at its current cores and its shards) counts
// as free first (a resize, a move, a change of cores).
std::optional<std::string> check_ps_cores(const View& v, JobId j, std::span<const DeviceId> devices,
                                          std::uint32_t shards, double ps_cores,
                                          double worker_cores, bool give_back);

// For a policy: whether job j's workers and shards fit on `devices` as the runtime will check
// them (always true for a job whose PS hold no cores): a job that holds no devices at its
// request's cores, one that does (a resize or move of it) at its cores now, its own given back.
inline bool ps_cores_fit(const View& v, JobId j, std::span<const DeviceId> devices) {
  const JobRequest& r = v.request(j);
  if (!holds_ps_cores(r)) return true;
  const JobState& s = v.state(j);
  const bool moving = !s.devices.empty();
  return !check_ps_cores(v, j, devices, v.ps(j), moving ? v.ps_cores(j) : r.ps_cpus,
                         moving ? v.worker_cores(j) : v.details(j).cpus_per_worker, moving);
}

} // namespace dlsim
