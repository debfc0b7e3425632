// The analytic scaling model (docs/scaling.md).
#include "sim/runtime/scaling_model.h"

#include "sim/network/iteration_time.h"

#include <algorithm>
#include <vector>

namespace dlsim {

double ring_comm_s(double model_bytes, std::uint32_t replicas, std::uint32_t nodes,
                   double local_gb_s, double nic_gb_s) {
  if (replicas < 2) return 0.0;
  const double n = replicas;
  const double gb_s = nodes > 1 ? std::min(local_gb_s, nic_gb_s) : local_gb_s;
  return 2.0 * (n - 1) / n * model_bytes / (gb_s * 1e9);
}

double ring_latency_s(const ScalingPlacement& p) {
  if (p.ps > 0 || p.replicas < 2) return 0.0;
  return 2.0 * (p.replicas - 1.0) * (p.nodes > 1 ? p.nic_step_s : p.local_step_s);
}

double ps_comm_s(double model_bytes, const ScalingPlacement& p) {
  if (p.ps == 0) return 0.0;
  // A replica's own link carries M in each phase (M/k to each of k shards).
  double phase = model_bytes / (p.local_gb_s * 1e9);
  if (p.nodes > 1 || p.ps_nic_units > 0)
    phase = std::max(phase, p.ps_nic_units * model_bytes / p.ps / (p.nic_gb_s * 1e9));
  // A node's shards take its own replicas' shares through the host's PCIe link.
  phase = std::max(phase, p.ps_host_units * model_bytes / p.ps / (p.host_gb_s * 1e9));
  return 2.0 * phase; // push, then pull
}

double ps_host_units(std::span<const std::uint32_t> replicas_per_node,
                     std::span<const std::uint32_t> shards_per_node) {
  double worst = 0;
  for (std::size_t a = 0; a < replicas_per_node.size(); ++a)
    worst = std::max(worst, static_cast<double>(replicas_per_node[a]) * shards_per_node[a]);
  return worst;
}

double ps_nic_units(std::span<const std::uint32_t> replicas_per_node,
                    std::span<const std::uint32_t> shards_per_node, std::uint32_t replicas,
                    std::uint32_t shards) {
  double worst = 0;
  for (std::size_t a = 0; a < replicas_per_node.size(); ++a) {
    const double r = replicas_per_node[a];
    const double k = shards_per_node[a];
    worst = std::max({worst, k * (replicas - r), r * (shards - k)});
  }
  return worst;
}

double ps_cpu_s(double model_bytes, const ScalingPlacement& p) {
  if (p.ps == 0 || !(p.ps_cores > 0)) return 0.0;
  const double update = (p.replicas + 4.0) * model_bytes / p.ps / (p.ps_cores * kCoreMemoryBytesS);
  const double copies = p.worker_cores > 0 ? 2.0 * p.devices_per_worker * model_bytes /
                                                 (p.worker_cores * kCoreMemoryBytesS)
                                           : 0.0;
  return update + copies;
}

double analytic_comm_s(double model_bytes, const ScalingPlacement& p) {
  return p.ps > 0 ? ps_comm_s(model_bytes, p) + ps_cpu_s(model_bytes, p)
                  : ring_comm_s(model_bytes, p.replicas, p.nodes, p.local_gb_s, p.nic_gb_s);
}

double analytic_step_s(double compute_s, double model_bytes, double overlap,
                       const ScalingPlacement& p) {
  return iteration_seconds(compute_s, analytic_comm_s(model_bytes, p), overlap, 0.0) +
         ring_latency_s(p);
}

ScalingPlacement scaling_placement(const Cluster& c, const JobState& job, std::uint32_t ps) {
  ScalingPlacement p;
  p.replicas = static_cast<std::uint32_t>(job.devices.size());
  p.ps = ps;
  // The job's nodes in order of first appearance (allocation order), with replica counts.
  std::vector<NodeId> nodes;
  std::vector<std::uint32_t> replicas;
  double local = 0;
  double nic = 0;
  double host = 0;
  double local_step_us = 0;
  double nic_step_us = 0;
  for (DeviceId d : job.devices) {
    const NodeId n = c.devices[d].node;
    auto it = std::find(nodes.begin(), nodes.end(), n);
    if (it == nodes.end()) {
      nodes.push_back(n);
      replicas.push_back(1);
      const NodeLinks& links = c.groups[c.nodes[n].group].links;
      const double l = links.nvlink ? links.nvlink_gb_s : links.pcie_gb_s;
      local = nodes.size() == 1 ? l : std::min(local, l);
      nic = nodes.size() == 1 ? links.nic_gb_s : std::min(nic, links.nic_gb_s);
      host = nodes.size() == 1 ? links.pcie_gb_s : std::min(host, links.pcie_gb_s);
      // The slowest step: the largest latency among the job's nodes.
      local_step_us = std::max(local_step_us, links.ring_step_us);
      nic_step_us = std::max(nic_step_us, links.nic_ring_step_us);
    } else {
      ++replicas[static_cast<std::size_t>(it - nodes.begin())];
    }
  }
  p.nodes = static_cast<std::uint32_t>(nodes.size());
  if (p.nodes > 0) {
    p.local_gb_s = local;
    p.nic_gb_s = nic;
    p.host_gb_s = host;
    p.local_step_s = local_step_us * 1e-6;
    p.nic_step_s = nic_step_us * 1e-6;
  }
  if (p.ps > 0 && job.workers > 0) {
    const std::uint32_t per_worker = p.replicas / job.workers;
    std::vector<std::uint32_t> shards(nodes.size(), 0);
    for (std::uint32_t shard = 0; shard < p.ps; ++shard) {
      const DeviceId d = job.devices[static_cast<std::size_t>(shard % job.workers) * per_worker];
      auto it = std::find(nodes.begin(), nodes.end(), c.devices[d].node);
      ++shards[static_cast<std::size_t>(it - nodes.begin())];
    }
    p.ps_nic_units = ps_nic_units(replicas, shards, p.replicas, p.ps);
    p.ps_host_units = ps_host_units(replicas, shards);
  }
  return p;
}

} // namespace dlsim
