#include "workloads/learn/feature_rank.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dlsim {

namespace {

std::vector<double> ranks(const std::vector<double>& x) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> r(x.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]])
      ++j;
    const double mean_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k)
      r[order[k]] = mean_rank;
    i = j + 1;
  }
  return r;
}

double gini(double ones, double n) {
  if (n <= 0) return 0;
  const double p = ones / n;
  return 2 * p * (1 - p);
}

} // namespace

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const auto n = static_cast<double>(x.size());
  if (x.size() < 2) return 0;
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  return pearson(ranks(x), ranks(y));
}

double kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y) {
  // O(n^2): the data sets here are a few thousand jobs.
  double concordant = 0, discordant = 0, tie_x = 0, tie_y = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      const double dx = x[i] - x[j];
      const double dy = y[i] - y[j];
      if (dx == 0 && dy == 0) continue;
      if (dx == 0) {
        ++tie_x;
      } else if (dy == 0) {
        ++tie_y;
      } else if ((dx > 0) == (dy > 0)) {
        ++concordant;
      } else {
        ++discordant;
      }
    }
  }
  const double denom =
      std::sqrt((concordant + discordant + tie_x) * (concordant + discordant + tie_y));
  return denom > 0 ? (concordant - discordant) / denom : 0;
}

double gini_decrease(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size();
  if (n < 2) return 0;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  const double total_ones = std::accumulate(y.begin(), y.end(), 0.0);
  const auto nn = static_cast<double>(n);
  const double before = gini(total_ones, nn);
  double best = before;
  double left_ones = 0;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    left_ones += y[order[i]];
    if (x[order[i]] == x[order[i + 1]]) continue; // a threshold goes between distinct values
    const auto left = static_cast<double>(i + 1);
    const double after =
        (left * gini(left_ones, left) + (nn - left) * gini(total_ones - left_ones, nn - left)) / nn;
    best = std::min(best, after);
  }
  return before - best;
}

} // namespace dlsim
