// Ridge regression in closed form (ridge.h).
#include "workloads/learn/ridge.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <cmath>

namespace dlsim::learn {

RidgeModel fit_ridge(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, double lambda) {
  if (x.rows() == 0) throw InputError("ridge: no rows to fit");
  if (x.rows() != y.size()) {
    throw InputError(fmt::format("ridge: {} rows of features but {} targets", x.rows(), y.size()));
  }
  if (!std::isfinite(lambda) || lambda < 0) {
    throw InputError(fmt::format("ridge: lambda must be >= 0, got {}", lambda));
  }
  const Eigen::RowVectorXd x_mean = x.colwise().mean();
  const double y_mean = y.mean();
  const Eigen::MatrixXd xc = x.rowwise() - x_mean;
  const Eigen::VectorXd yc = y.array() - y_mean;
  Eigen::MatrixXd gram = xc.transpose() * xc;
  gram.diagonal().array() += lambda;
  // The Gram matrix plus lambda I is symmetric positive (semi)definite: LDLT with pivoting, and
  // an explicit check, because a singular system would otherwise give NaN weights silently.
  Eigen::LDLT<Eigen::MatrixXd> ldlt(gram);
  if (ldlt.info() != Eigen::Success || !ldlt.isPositive() ||
      (ldlt.vectorD().array().abs() < 1e-12).any()) {
    throw InputError("ridge: the system is singular (collinear or constant features with "
                     "lambda = 0); use lambda > 0");
  }
  RidgeModel m;
  m.weights = ldlt.solve(xc.transpose() * yc);
  m.intercept = y_mean - x_mean.dot(m.weights);
  return m;
}

double predict_ridge(const RidgeModel& m, const Eigen::VectorXd& row) {
  return m.intercept + row.dot(m.weights);
}

Eigen::VectorXd predict_ridge(const RidgeModel& m, const Eigen::MatrixXd& x) {
  return (x * m.weights).array() + m.intercept;
}

} // namespace dlsim::learn
