// k nearest neighbours, binary, Euclidean distance (docs/aiturbo.md#the-classifier): the majority
// label of the k training rows closest to a row; ties in distance go to the earlier row, a tied
// vote to 1. Standardize the features first.
#pragma once

#include <Eigen/Dense>

namespace dlsim {

int knn_predict(const Eigen::MatrixXd& train_x, const Eigen::VectorXd& train_y,
                const Eigen::VectorXd& row, int k);

} // namespace dlsim
