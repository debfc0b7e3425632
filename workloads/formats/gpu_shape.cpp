#include "workloads/formats/gpu_shape.h"

#include <algorithm>

namespace dlsim {

GpuShape shape_for_gpus(std::uint32_t total, std::uint32_t per_node) {
  if (total == 0) return {};
  for (std::uint32_t d = std::min(total, std::max<std::uint32_t>(per_node, 1)); d >= 1; --d) {
    if (total % d == 0) return {total / d, d};
  }
  return {total, 1};
}

} // namespace dlsim
