// Logistic regression, binary, by Newton's method (iteratively reweighted least squares) with an
// L2 penalty, on Eigen (docs/aiturbo.md#the-classifier). Features are used as given: standardize
// them first.
#pragma once

#include <Eigen/Dense>

namespace dlsim {

struct LogisticModel {
  Eigen::VectorXd weights; // one per feature
  double bias = 0;
};

// x: one row per sample; y: 0 or 1 per sample. l2: the penalty on the weights (not the bias).
LogisticModel fit_logistic(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, double l2,
                           int iterations = 25);

// P(y = 1 | row).
double logistic_probability(const LogisticModel& m, const Eigen::VectorXd& row);

} // namespace dlsim
