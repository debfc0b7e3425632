// Measured step-time ratios by placement (docs/scaling.md#measured-scaling-in-the-runtime).
#include "sim/runtime/measured_scaling.h"

#include <algorithm>

namespace dlsim {

std::string placement_key(std::span<const std::uint32_t> replicas_per_node) {
  std::string digits;
  for (std::uint32_t r : replicas_per_node) {
    if (r == 0 || r > 9) return "";
    digits += static_cast<char>('0' + r);
  }
  std::string best = digits;
  for (std::size_t i = 1; i < digits.size(); ++i)
    best = std::min(best, digits.substr(i) + digits.substr(0, i));
  return best;
}

double measured_step_ratio(const MeasuredScaling& m,
                           std::span<const std::uint32_t> replicas_per_node) {
  if (replicas_per_node.empty()) return 0.0;
  const std::string key = placement_key(replicas_per_node);
  if (!key.empty()) {
    auto it = m.by_placement.find(key);
    if (it != m.by_placement.end()) return it->second;
  }
  const auto nodes = static_cast<std::uint32_t>(replicas_per_node.size());
  std::uint32_t replicas = 0;
  for (std::uint32_t r : replicas_per_node)
    replicas += r;
  auto hi = m.by_counts.lower_bound({nodes, replicas});
  if (hi != m.by_counts.end() && hi->first == std::pair{nodes, replicas}) return hi->second;
  if (hi == m.by_counts.begin() || hi == m.by_counts.end() || hi->first.first != nodes) return 0.0;
  auto lo = std::prev(hi);
  if (lo->first.first != nodes) return 0.0;
  const double w = static_cast<double>(replicas - lo->first.second) /
                   static_cast<double>(hi->first.second - lo->first.second);
  return lo->second + w * (hi->second - lo->second);
}

std::vector<std::uint32_t> replicas_per_node(const Cluster& c, const JobState& job) {
  std::vector<NodeId> nodes;
  std::vector<std::uint32_t> counts;
  for (DeviceId d : job.devices) {
    const NodeId n = c.devices[d].node;
    auto it = std::find(nodes.begin(), nodes.end(), n);
    if (it == nodes.end()) {
      nodes.push_back(n);
      counts.push_back(1);
    } else {
      ++counts[static_cast<std::size_t>(it - nodes.begin())];
    }
  }
  return counts;
}

} // namespace dlsim
