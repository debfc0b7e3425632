// Gradient-boosted stumps (boosted_stumps.h).
#include "workloads/learn/boosted_stumps.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace dlsim::learn {

namespace {

// The best single split of the residuals r over all features: least summed squared error of the
// two sides around their means. nullopt-like: feature -1 when no split leaves min_leaf rows on
// both sides (every feature constant, or too few rows).
Stump best_stump(const Eigen::MatrixXd& x, const Eigen::VectorXd& r,
                 const std::vector<std::vector<Eigen::Index>>& order, int min_leaf) {
  const Eigen::Index n = x.rows();
  const double total = r.sum();
  Stump best;
  best.feature = -1;
  // Minimizing the SSE of a split = maximizing sum_l^2 / n_l + sum_r^2 / n_r.
  double best_gain = -std::numeric_limits<double>::infinity();
  for (Eigen::Index f = 0; f < x.cols(); ++f) {
    const auto& idx = order[static_cast<std::size_t>(f)];
    double left_sum = 0;
    for (Eigen::Index k = 0; k + 1 < n; ++k) {
      left_sum += r(idx[static_cast<std::size_t>(k)]);
      const double here = x(idx[static_cast<std::size_t>(k)], f);
      const double next = x(idx[static_cast<std::size_t>(k + 1)], f);
      if (next <= here) continue; // split only between distinct values
      const Eigen::Index nl = k + 1;
      const Eigen::Index nr = n - nl;
      if (nl < min_leaf || nr < min_leaf) continue;
      const double right_sum = total - left_sum;
      const double gain = left_sum * left_sum / static_cast<double>(nl) +
                          right_sum * right_sum / static_cast<double>(nr);
      // Strictly greater: ties keep the earlier feature and the lower threshold.
      if (gain > best_gain + 1e-12) {
        best_gain = gain;
        best.feature = static_cast<int>(f);
        best.threshold = here + (next - here) / 2;
        best.left = left_sum / static_cast<double>(nl);
        best.right = right_sum / static_cast<double>(nr);
      }
    }
  }
  return best;
}

} // namespace

BoostedStumps fit_boosted_stumps(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                 const BoostOptions& options) {
  if (x.rows() == 0) throw InputError("boosted stumps: no rows to fit");
  if (x.rows() != y.size()) {
    throw InputError(
        fmt::format("boosted stumps: {} rows of features but {} targets", x.rows(), y.size()));
  }
  if (options.rounds < 0) throw InputError("boosted stumps: rounds must be >= 0");
  if (!(options.learning_rate > 0 && options.learning_rate <= 1)) {
    throw InputError(fmt::format("boosted stumps: learning rate must be in (0, 1], got {}",
                                 options.learning_rate));
  }
  if (options.min_leaf < 1) throw InputError("boosted stumps: min_leaf must be >= 1");

  // Each feature's row order, sorted once (stable: equal values keep row order).
  std::vector<std::vector<Eigen::Index>> order(static_cast<std::size_t>(x.cols()));
  for (Eigen::Index f = 0; f < x.cols(); ++f) {
    auto& idx = order[static_cast<std::size_t>(f)];
    idx.resize(static_cast<std::size_t>(x.rows()));
    std::iota(idx.begin(), idx.end(), Eigen::Index{0});
    std::stable_sort(idx.begin(), idx.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return x(a, f) < x(b, f); });
  }

  BoostedStumps m;
  m.base = y.mean();
  Eigen::VectorXd fitted = Eigen::VectorXd::Constant(y.size(), m.base);
  for (int round = 0; round < options.rounds; ++round) {
    const Eigen::VectorXd residual = y - fitted;
    Stump s = best_stump(x, residual, order, options.min_leaf);
    if (s.feature < 0) break; // nothing left to split
    s.left *= options.learning_rate;
    s.right *= options.learning_rate;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      fitted(i) += x(i, s.feature) <= s.threshold ? s.left : s.right;
    m.stumps.push_back(s);
  }
  return m;
}

double predict_stumps(const BoostedStumps& m, const Eigen::VectorXd& row) {
  double p = m.base;
  for (const Stump& s : m.stumps)
    p += row(s.feature) <= s.threshold ? s.left : s.right;
  return p;
}

Eigen::VectorXd predict_stumps(const BoostedStumps& m, const Eigen::MatrixXd& x) {
  Eigen::VectorXd p(x.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    p(i) = predict_stumps(m, Eigen::VectorXd(x.row(i).transpose()));
  return p;
}

} // namespace dlsim::learn
