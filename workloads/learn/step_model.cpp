#include "workloads/learn/step_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim {

StepFit fit_step_model(std::span<const double> k, std::span<const double> loss) {
  StepFit best;
  const std::size_t n = std::min(k.size(), loss.size());
  if (n < 3) return best;
  const double lowest =
      *std::min_element(loss.begin(), loss.begin() + static_cast<std::ptrdiff_t>(n));
  if (!(lowest > 0)) return best;
  // Least squares of y = a k + b in closed form, with k centred on its mean so that the normal
  // equations are diagonal (well conditioned for k up to 1e10): a = sum(k' y) / sum(k'^2),
  // b = mean(y) - a mean(k). The k-sums are the same for every c, so each c costs two passes over
  // the points: a round over thousands of jobs costs a few microseconds each.
  const auto nn = static_cast<double>(n);
  double mean_k = 0;
  for (std::size_t i = 0; i < n; ++i)
    mean_k += k[i] / nn;
  double skk = 0;
  for (std::size_t i = 0; i < n; ++i)
    skk += (k[i] - mean_k) * (k[i] - mean_k);
  if (!(skk > 0)) return best; // all at one k: no slope to fit
  double best_sse = std::numeric_limits<double>::infinity();
  for (int g = 0; g < kStepGrid; ++g) {
    // c from 0 to 0.97 of the smallest loss: at the smallest loss itself 1 / (loss - c) blows up.
    const double c = lowest * 0.97 * g / (kStepGrid - 1);
    double sy = 0, sky = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double y = 1.0 / (loss[i] - c);
      sy += y;
      sky += (k[i] - mean_k) * y;
    }
    const double a = sky / skk;
    const double b = sy / nn - a * mean_k;
    if (!(a > 0) || !(b > 0)) continue;
    double sse = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double e = 1.0 / (a * k[i] + b) + c - loss[i];
      sse += e * e;
    }
    if (sse < best_sse) {
      best_sse = sse;
      best = {a, b, c, std::sqrt(sse / nn), true};
    }
  }
  return best;
}

double predicted_iterations(const StepFit& fit, double target) {
  if (!fit.ok || !(fit.a > 0) || !(target > fit.c)) return std::numeric_limits<double>::infinity();
  return std::max(0.0, (1.0 / (target - fit.c) - fit.b) / fit.a);
}

} // namespace dlsim
