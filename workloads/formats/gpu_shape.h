// How a trace's total GPU count becomes a gang: workers x devices per worker, all of a worker's
// devices on one node. Traces that give only a total (Philly, Tiresias) need this rule.
#pragma once

#include <cstdint>

namespace dlsim {

struct GpuShape {
  std::uint32_t workers = 1;
  std::uint32_t devices_per_worker = 1;
};

// The fewest workers that hold `total` GPUs with at most `per_node` per worker, all workers the
// same size: devices_per_worker = the largest divisor of `total` that is <= per_node.
// 1..8 -> 1 x n; 12 -> 2 x 6; 16 -> 2 x 8; 24 -> 3 x 8; 128 -> 16 x 8; 11 -> 11 x 1.
GpuShape shape_for_gpus(std::uint32_t total, std::uint32_t per_node = 8);

} // namespace dlsim
