// Leave-one-group-out cross-validation folds: every row of one group (an architecture, a user)
// is held out together, so the score says how a model does on a group it has never seen.
#pragma once

#include <Eigen/Dense>

#include <vector>

namespace dlsim::learn {

struct Fold {
  int group = 0;
  std::vector<Eigen::Index> train; // row indices, ascending
  std::vector<Eigen::Index> test;  // row indices, ascending
};

// One fold per distinct group, in ascending group order. InputError with fewer than two groups
// (nothing would be left to train on).
std::vector<Fold> leave_one_group_out(const std::vector<int>& groups);

// The rows of x (or y) listed in `rows`, in that order.
Eigen::MatrixXd take_rows(const Eigen::MatrixXd& x, const std::vector<Eigen::Index>& rows);
Eigen::VectorXd take_rows(const Eigen::VectorXd& y, const std::vector<Eigen::Index>& rows);

} // namespace dlsim::learn
