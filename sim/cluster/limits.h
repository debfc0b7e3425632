// Documented limits on a cluster's structural sizes (docs/cluster.md#limits), checked while the
// YAML is read and before anything is allocated: a 10-character typo such as `rack: 2e9` or
// `sockets: 1e8` must be an error naming the key, not a multi-gigabyte allocation.
#pragma once

#include <cstdint>

namespace dlsim {

// Nodes in a cluster (all groups' counts): 1,000 times Philly's 550 or Alibaba openb's 1,523.
inline constexpr std::uint64_t kMaxNodes = 1'000'000;
// Devices of one node (all types): an NVLink domain is all-to-all within the node, so links grow
// with its square; the largest real node domains are 72 GPUs (GB200 NVL72) (NVIDIA, "GB200
// NVL72", 2024).
inline constexpr std::uint32_t kMaxDevicesPerNode = 1'024;
// Devices in a cluster.
inline constexpr std::uint64_t kMaxDevices = 4'000'000;
// Links inside the nodes of a cluster (PCIe, NVLink pairs, NICs): NVLink's all-to-all pairs grow
// with the square of a node's GPUs, so nodes and devices within their limits could still ask for
// billions of links. The topology takes about 250 bytes a link, so this is about 1 GB; 100,000
// GPUs in GB200 NVL72 domains need 1,389 x (2,556 NVLink pairs + 72 PCIe + ...) = 3.7M.
inline constexpr std::uint64_t kMaxLinks = 4'000'000;
// CPU sockets of one node (real servers have 1 to 8).
inline constexpr int kMaxSockets = 64;

} // namespace dlsim
