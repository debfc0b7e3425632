// Gradient-boosted regression stumps on squared loss (Friedman, "Greedy Function Approximation:
// A Gradient Boosting Machine", Annals of Statistics 2001, with depth-1 trees): start from the
// mean target, then each round fits one split of one feature to the residuals and adds it scaled
// by the learning rate. Non-linear in each feature, additive across features, and deterministic
// without any randomness (ties go to the lowest feature, then the lowest threshold).
#pragma once

#include <Eigen/Dense>

#include <vector>

namespace dlsim::learn {

struct Stump {
  int feature = 0;
  double threshold = 0; // x[feature] <= threshold goes left
  double left = 0;      // already multiplied by the learning rate
  double right = 0;
};

struct BoostedStumps {
  double base = 0; // the mean training target
  std::vector<Stump> stumps;
};

struct BoostOptions {
  int rounds = 200;
  double learning_rate = 0.1;
  // A split leaves at least this many training rows on each side.
  int min_leaf = 1;
};

// InputError on empty or mismatched inputs, rounds < 0, a rate outside (0, 1] or min_leaf < 1.
BoostedStumps fit_boosted_stumps(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                 const BoostOptions& options);
double predict_stumps(const BoostedStumps& m, const Eigen::VectorXd& row);
Eigen::VectorXd predict_stumps(const BoostedStumps& m, const Eigen::MatrixXd& x);

} // namespace dlsim::learn
