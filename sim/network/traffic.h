// The flows of a running job's communication pattern (docs/network.md): ring all-reduce or
// parameter-server push and pull, plus host-to-device input loading; and the bytes and latency
// steps each pattern costs per iteration.
#pragma once

#include "sim/network/router.h"

#include <cstdint>
#include <span>
#include <vector>

namespace dlsim {

enum class FlowRole : std::uint8_t { kRing, kPush, kPull, kInput };

struct TrafficRequest {
  std::span<const DeviceId> devices; // the job's devices, worker-major
  std::uint32_t devices_per_worker = 1;
  std::uint32_t ps = 0; // parameter-server shards; 0 = ring all-reduce
  bool input = false;   // also the host-to-device input flows, one per device
};

struct PatternFlow {
  Router::Vertex src = 0;
  Router::Vertex dst = 0;
  FlowRole role = FlowRole::kRing;
};

// Every device is a replica (a worker with several devices counts as that many). With fewer than
// two replicas there is nothing to synchronize: only the input flow, when asked for.
//  - Ring all-reduce: replica i sends to replica i+1 (mod n), in the allocation's order, which
//    keeps a node's devices next to each other (NCCL's ring: one hop in and out per node).
//  - Parameter server: shard s runs on socket 0 (the NIC's socket) of the node of worker
//    s mod workers; every replica pushes to and pulls from every shard.
//  - Input: the socket above the device's PCIe switch sends each device its batches.
void pattern_flows(const Router& router, const TrafficRequest& request,
                   std::vector<PatternFlow>& out);

// Bytes one flow of the pattern carries per iteration, for a model of `model_bytes`.
inline double ring_bytes_per_flow(double model_bytes, std::size_t replicas) {
  return 2.0 * static_cast<double>(replicas - 1) / static_cast<double>(replicas) * model_bytes;
}
inline double ps_bytes_per_flow(double model_bytes, std::uint32_t shards) {
  return model_bytes / shards;
}
// Sequential steps per iteration, each paying the route latency once: ring all-reduce is
// n-1 reduce-scatter and n-1 all-gather steps; the parameter server one push and one pull.
inline double latency_steps(std::size_t replicas, std::uint32_t ps) {
  return ps > 0 ? 2.0 : 2.0 * static_cast<double>(replicas - 1);
}

} // namespace dlsim
