// Feature standardization (z-scores) fitted on training rows and applied to any rows: the usual
// first step before ridge regression or any learner whose penalty depends on feature scale.
#pragma once

#include <Eigen/Dense>

namespace dlsim::learn {

// Per-column mean and scale of a training matrix (rows = samples, columns = features).
struct Standardizer {
  Eigen::VectorXd mean;
  // Population standard deviation of each column; 1 for a constant column, so that it maps to 0
  // instead of dividing by zero.
  Eigen::VectorXd scale;
};

// InputError when x has no rows.
Standardizer fit_standardizer(const Eigen::MatrixXd& x);
// (x - mean) / scale, column by column. InputError when the column count differs from the fit's.
Eigen::MatrixXd standardize(const Standardizer& s, const Eigen::MatrixXd& x);
Eigen::VectorXd standardize_row(const Standardizer& s, const Eigen::VectorXd& row);

} // namespace dlsim::learn
