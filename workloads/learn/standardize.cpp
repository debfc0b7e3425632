// Z-score standardization (standardize.h).
#include "workloads/learn/standardize.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <cmath>

namespace dlsim::learn {

Standardizer fit_standardizer(const Eigen::MatrixXd& x) {
  if (x.rows() == 0) throw InputError("standardize: no rows to fit");
  Standardizer s;
  s.mean = x.colwise().mean().transpose();
  s.scale.resize(x.cols());
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    double var = (x.col(c).array() - s.mean(c)).square().mean();
    double sd = std::sqrt(var);
    // A constant column carries no information; scale 1 keeps it at 0 rather than NaN.
    s.scale(c) = sd > 1e-12 ? sd : 1.0;
  }
  return s;
}

Eigen::MatrixXd standardize(const Standardizer& s, const Eigen::MatrixXd& x) {
  if (x.cols() != s.mean.size()) {
    throw InputError(
        fmt::format("standardize: {} features given, the fit has {}", x.cols(), s.mean.size()));
  }
  Eigen::MatrixXd z = x.rowwise() - s.mean.transpose();
  return z.array().rowwise() / s.scale.transpose().array();
}

Eigen::VectorXd standardize_row(const Standardizer& s, const Eigen::VectorXd& row) {
  if (row.size() != s.mean.size()) {
    throw InputError(
        fmt::format("standardize: {} features given, the fit has {}", row.size(), s.mean.size()));
  }
  return (row - s.mean).array() / s.scale.array();
}

} // namespace dlsim::learn
