#include "policies/aiturbo/borda.h"

#include <algorithm>

namespace dlsim {

std::vector<double> borda_points(const std::vector<std::vector<double>>& criteria) {
  const std::size_t n = criteria.empty() ? 0 : criteria[0].size();
  std::vector<double> points(n, 0.0);
  std::vector<double> sorted;
  for (const auto& values : criteria) {
    sorted.assign(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < n; ++i) {
      // Jobs with a strictly larger (worse) value: beaten by job i.
      const auto worse = sorted.end() - std::upper_bound(sorted.begin(), sorted.end(), values[i]);
      points[i] += static_cast<double>(worse);
    }
  }
  return points;
}

} // namespace dlsim
