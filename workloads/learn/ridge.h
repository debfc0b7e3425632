// Ridge regression (least squares with an L2 penalty on the weights, not on the intercept),
// solved in closed form: w = (Xc'Xc + lambda I)^-1 Xc'yc on centred X and y, b = mean(y) -
// mean(X) w.
#pragma once

#include <Eigen/Dense>

namespace dlsim::learn {

struct RidgeModel {
  Eigen::VectorXd weights;
  double intercept = 0;
};

// InputError when the sizes disagree, x has no rows, lambda < 0 or is not finite, or the system
// is singular (lambda = 0 with collinear features).
RidgeModel fit_ridge(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, double lambda);
double predict_ridge(const RidgeModel& m, const Eigen::VectorXd& row);
Eigen::VectorXd predict_ridge(const RidgeModel& m, const Eigen::MatrixXd& x);

} // namespace dlsim::learn
