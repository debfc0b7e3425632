// Leave-one-group-out folds (cross_validation.h).
#include "workloads/learn/cross_validation.h"

#include "sim/engine/error.h"

#include <algorithm>

namespace dlsim::learn {

std::vector<Fold> leave_one_group_out(const std::vector<int>& groups) {
  std::vector<int> distinct = groups;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() < 2) {
    throw InputError("cross-validation: leaving one group out needs at least two groups");
  }
  std::vector<Fold> folds;
  folds.reserve(distinct.size());
  for (int g : distinct) {
    Fold f;
    f.group = g;
    for (std::size_t i = 0; i < groups.size(); ++i)
      (groups[i] == g ? f.test : f.train).push_back(static_cast<Eigen::Index>(i));
    folds.push_back(std::move(f));
  }
  return folds;
}

Eigen::MatrixXd take_rows(const Eigen::MatrixXd& x, const std::vector<Eigen::Index>& rows) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), x.cols());
  for (std::size_t k = 0; k < rows.size(); ++k)
    out.row(static_cast<Eigen::Index>(k)) = x.row(rows[k]);
  return out;
}

Eigen::VectorXd take_rows(const Eigen::VectorXd& y, const std::vector<Eigen::Index>& rows) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t k = 0; k < rows.size(); ++k)
    out(static_cast<Eigen::Index>(k)) = y(rows[k]);
  return out;
}

} // namespace dlsim::learn
