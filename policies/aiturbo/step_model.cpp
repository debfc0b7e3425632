#include "policies/aiturbo/step_model.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim {

StepFit fit_step_model(std::span<const double> k, std::span<const double> loss) {
  StepFit best;
  const auto n = static_cast<Eigen::Index>(std::min(k.size(), loss.size()));
  if (n < 3) return best;
  const double lowest = *std::min_element(loss.begin(), loss.begin() + n);
  if (!(lowest > 0)) return best;
  Eigen::MatrixXd x(n, 2);
  Eigen::VectorXd y(n);
  double best_sse = std::numeric_limits<double>::infinity();
  for (int g = 0; g < kStepGrid; ++g) {
    // c from 0 to 0.97 of the smallest loss: at the smallest loss itself 1 / (loss - c) blows up.
    const double c = lowest * 0.97 * g / (kStepGrid - 1);
    for (Eigen::Index i = 0; i < n; ++i) {
      x(i, 0) = k[static_cast<std::size_t>(i)];
      x(i, 1) = 1;
      y(i) = 1.0 / (loss[static_cast<std::size_t>(i)] - c);
    }
    const Eigen::Vector2d ab = x.colPivHouseholderQr().solve(y);
    if (!(ab(0) > 0) || !(ab(1) > 0)) continue;
    double sse = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const double e = 1.0 / (ab(0) * x(i, 0) + ab(1)) + c - loss[static_cast<std::size_t>(i)];
      sse += e * e;
    }
    if (sse < best_sse) {
      best_sse = sse;
      best = {ab(0), ab(1), c, std::sqrt(sse / static_cast<double>(n)), true};
    }
  }
  return best;
}

double predicted_iterations(const StepFit& fit, double target) {
  if (!fit.ok || !(fit.a > 0) || !(target > fit.c)) return std::numeric_limits<double>::infinity();
  return std::max(0.0, (1.0 / (target - fit.c) - fit.b) / fit.a);
}

} // namespace dlsim
