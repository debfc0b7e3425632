// The analytic scaling model (runtime.scaling: analytic; docs/scaling.md): a data-parallel job's
// time per step from its compute and the gradient exchange its placement allows, without the
// flow-level network model. Cross-node traffic is charged at the NIC's bandwidth, traffic inside
// a node at the node's GPU-to-GPU bandwidth (NVLink, else PCIe), so where the workers sit
// changes the rate even with network.contention off.
#pragma once

// The runtime's truth: policies are compiled with DLSIM_POLICY_CODE (policies/CMakeLists.txt), so
// a policy that includes this header does not build (the ctest policy_cannot_include.*).
#ifdef DLSIM_POLICY_CODE
#error                                                                                             \
    "sim/runtime/scaling_model.h is the analytic scaling model (step time from compute, communication and CPU phases), the runtime's truth: a policy decides from observations (View, observations), never from the runtime's models (docs/architecture.md#the-layers)"
#endif

#include "sim/runtime/sim_state.h"

#include <cstdint>
#include <span>

namespace dlsim {

// One job's placement as the formula sees it.
struct ScalingPlacement {
  std::uint32_t replicas = 1; // devices holding a replica (workers x devices per worker)
  std::uint32_t nodes = 1;    // distinct nodes of those devices
  std::uint32_t ps = 0;       // parameter-server shards; 0 = ring all-reduce
  double local_gb_s = 15.76;  // slowest GPU-to-GPU path inside one of its nodes (GB/s)
  double nic_gb_s = 12.5;     // slowest NIC among its nodes (GB/s)
  // Slowest host PCIe link among its nodes (GB/s): the path between a node's GPUs and a
  // parameter server in its host memory, NVLink or not.
  double host_gb_s = 15.76;
  // Latency of one step of a ring all-reduce (s): inside a node, and across nodes (a ring that
  // crosses nodes waits at each step for its slowest hop, a NIC); ring_latency_s.
  double local_step_s = 5.7e-6;
  double nic_step_s = 9.6e-6;
  // With ps > 0: the largest number of bytes, in units of model_bytes / ps, that one node's NIC
  // must carry in one direction during one phase (push or pull); see ps_nic_units.
  double ps_nic_units = 0;
  // With ps > 0: the largest number of bytes, in units of model_bytes / ps, that the shards of
  // one node receive from (push) or send to (pull) that node's own replicas in one phase,
  // through its host's PCIe link; see ps_host_units.
  double ps_host_units = 0;
  // CPU cores of each parameter server and of each worker (docs/scaling.md#cpu-cores-of-ps-and-
  // workers); ps_cores 0 = the CPU side of the exchange is not modelled (as before it was).
  double ps_cores = 0;
  double worker_cores = 0;
  std::uint32_t devices_per_worker = 1;
};

// Bytes per second one CPU core moves through memory: a Xeon Gold 6148 socket (the catalog's
// XeonCPU) has 6 DDR4-2666 channels, 6 x 2666e6 x 8 B = 128.0 GB/s, shared by 20 cores.
constexpr double kCoreMemoryBytesS = 6 * 2666e6 * 8 / 20;

// The CPU time of a PS step (0 unless p.ps > 0 and p.ps_cores > 0): each shard sums the n
// replicas' gradients of M/k bytes and updates its M/k parameters and momentum (read and
// written), (n + 4) M/k bytes through c_ps cores; each worker copies its d replicas' gradients
// out at the push and the new parameters in at the pull, 2 d M bytes through c_w cores (0 when
// the job gives no cpus_per_worker). Both at kCoreMemoryBytesS per core.
double ps_cpu_s(double model_bytes, const ScalingPlacement& p);

// Ring all-reduce over n replicas: each sends and receives 2(n-1)/n x M (Patarasuk and Yuan,
// JPDC 2009), at the NIC's bandwidth when the ring crosses nodes, else at the local one.
double ring_comm_s(double model_bytes, std::uint32_t replicas, std::uint32_t nodes,
                   double local_gb_s, double nic_gb_s);

// The fixed cost of one ring all-reduce over n replicas: its 2(n-1) steps (n-1 of the reduce-
// scatter, n-1 of the all-gather) each wait one step latency, nic_step_s when the ring crosses
// nodes, else local_step_s. 0 for a PS job (ps > 0) or one replica. Not hidden by the backward
// pass: the last gradient bucket's all-reduce starts when the backward pass ends.
double ring_latency_s(const ScalingPlacement& p);

// Parameter servers, k shards: each replica pushes M/k to every shard, then pulls M/k back (two
// phases). A phase lasts as long as its busiest link: a replica's own link carries M, a node's
// NIC carries ps_nic_units x M/k (the traffic between its shards and the replicas on other
// nodes, or between its replicas and the shards on other nodes, whichever is larger), and a
// node's host PCIe link carries ps_host_units x M/k (its shards' traffic with its own replicas:
// a shard in host memory takes every local replica's M/k through that one link).
double ps_comm_s(double model_bytes, const ScalingPlacement& p);

// Per node a with r_a of the job's replicas and p_a of its shards: max over a of p_a r_a.
double ps_host_units(std::span<const std::uint32_t> replicas_per_node,
                     std::span<const std::uint32_t> shards_per_node);

// Per node a with r_a of the job's replicas and p_a of its shards, out of n and k:
// max over a of max(p_a (n - r_a), r_a (k - p_a)). `replicas_per_node` and `shards_per_node`
// are indexed alike (the job's nodes in any order).
double ps_nic_units(std::span<const std::uint32_t> replicas_per_node,
                    std::span<const std::uint32_t> shards_per_node, std::uint32_t replicas,
                    std::uint32_t shards);

// Communication per step for the placement: ring or parameter servers.
double analytic_comm_s(double model_bytes, const ScalingPlacement& p);

// Seconds per step of every replica computing compute_s: iteration_seconds (network.md) with
// the analytic communication and no input term, plus the ring's latency (ring_latency_s).
double analytic_step_s(double compute_s, double model_bytes, double overlap,
                       const ScalingPlacement& p);

// A job's placement as the formula sees it: its devices, their nodes and links, and its
// parameter servers (shard s on the node of worker s mod workers, as in the network model).
// `ps`: its shards (View::ps, or a number a policy weighs before asking for it with set_ps).
// Policies call it on a copy of a job's state to weigh a shape before asking for it.
ScalingPlacement scaling_placement(const Cluster& c, const JobState& job, std::uint32_t ps);

} // namespace dlsim
