// Root mean squared logarithmic error, the loss of Yeung et al. (HotCloud'20, slide 18):
// RMSLE = sqrt(1/n sum (log(p_i + 1) - log(y_i + 1))^2).
#pragma once

#include <Eigen/Dense>

namespace dlsim::learn {

// InputError when the sizes differ, there are no values, or a value is not > -1 (its log is
// undefined).
double rmsle(const Eigen::VectorXd& predicted, const Eigen::VectorXd& actual);

} // namespace dlsim::learn
