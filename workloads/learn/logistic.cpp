#include "workloads/learn/logistic.h"

#include <cmath>

namespace dlsim {

LogisticModel fit_logistic(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, double l2,
                           int iterations) {
  const Eigen::Index n = x.rows();
  const Eigen::Index d = x.cols();
  // The bias as a last column of ones, not penalized.
  Eigen::MatrixXd xb(n, d + 1);
  xb << x, Eigen::VectorXd::Ones(n);
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(d + 1);
  Eigen::MatrixXd penalty = l2 * Eigen::MatrixXd::Identity(d + 1, d + 1);
  penalty(d, d) = 0;
  for (int it = 0; it < iterations; ++it) {
    const Eigen::VectorXd p = (1.0 + (-(xb * beta)).array().exp()).inverse().matrix();
    const Eigen::VectorXd w = (p.array() * (1.0 - p.array())).max(1e-9).matrix();
    const Eigen::VectorXd grad = xb.transpose() * (p - y) + penalty * beta;
    const Eigen::MatrixXd hess = xb.transpose() * w.asDiagonal() * xb + penalty +
                                 1e-9 * Eigen::MatrixXd::Identity(d + 1, d + 1);
    const Eigen::VectorXd step = hess.ldlt().solve(grad);
    beta -= step;
    if (step.norm() < 1e-10) break;
  }
  return {beta.head(d), beta(d)};
}

double logistic_probability(const LogisticModel& m, const Eigen::VectorXd& row) {
  return 1.0 / (1.0 + std::exp(-(m.weights.dot(row) + m.bias)));
}

} // namespace dlsim
