#include "workloads/learn/knn.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace dlsim {

int knn_predict(const Eigen::MatrixXd& train_x, const Eigen::VectorXd& train_y,
                const Eigen::VectorXd& row, int k) {
  const auto n = static_cast<std::size_t>(train_x.rows());
  std::vector<double> dist(n);
  for (std::size_t i = 0; i < n; ++i)
    dist[i] = (train_x.row(static_cast<Eigen::Index>(i)).transpose() - row).squaredNorm();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  const std::size_t kk = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(1, k)));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kk), order.end(),
                    [&](std::size_t a, std::size_t b) {
                      return dist[a] < dist[b] || (dist[a] == dist[b] && a < b);
                    });
  double ones = 0;
  for (std::size_t i = 0; i < kk; ++i)
    ones += train_y(static_cast<Eigen::Index>(order[i]));
  return 2 * ones >= static_cast<double>(kk) ? 1 : 0;
}

} // namespace dlsim
