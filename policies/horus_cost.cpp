// The Horus placement cost (horus_cost.h).
#include "policies/horus_cost.h"

#include <cmath>

namespace dlsim {

std::optional<double> horus_cost(const HorusParams& p, const HorusDevice& d, double job_mem_gb,
                                 double job_util_pct) {
  if (d.tasks >= p.max_tasks) return std::nullopt;
  const double held = d.held_gb + job_mem_gb;
  // Strictly more than the margin left, as in the authors' Device.can_fit.
  if (d.memory_gb > 0 && !(d.memory_gb - held > p.mem_margin_gb)) return std::nullopt;
  // The authors' code computes `current + task / capacity` (operator precedence); the share
  // of memory the GPU would have in use is what the TPDS paper describes, and what dlsim uses.
  const double mem_share = d.memory_gb > 0 ? held / d.memory_gb : 0;
  const double sum = d.util_pct + job_util_pct;
  double u = std::abs(sum - 100);
  if (sum > 100) u *= p.over_weight;
  return p.mem_weight * mem_share + u / 100 + d.tasks;
}

std::optional<std::size_t> horus_choose(const HorusParams& p, std::span<const HorusDevice> devices,
                                        double job_mem_gb, double job_util_pct) {
  std::optional<std::size_t> best;
  double best_cost = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    std::optional<double> c = horus_cost(p, devices[i], job_mem_gb, job_util_pct);
    if (c && (!best || *c < best_cost)) {
      best = i;
      best_cost = *c;
    }
  }
  return best;
}

} // namespace dlsim
