// Leave-one-architecture-out evaluation of a utilization predictor (docs/utilization.md): each
// architecture's rows are predicted by a model trained on every other architecture, so the
// scores say what generalizes to an architecture the predictor has never seen.
#pragma once

#include "workloads/utilization/dataset.h"
#include "workloads/utilization/predictor.h"

#include <string>
#include <vector>

namespace dlsim {

// The out-of-fold prediction (percent) of every row of the dataset, in row order.
Eigen::VectorXd leave_one_arch_out(const UtilDataset& d, UtilModelKind kind,
                                   const UtilTrainOptions& options);

// The predictor trained on every row, with one held-out model per architecture of the data,
// trained on the rows of every other architecture (the models leave_one_arch_out scores): a
// run that predicts a job of one of these architectures uses the model that never saw it.
UtilPredictor train_with_held_out(const UtilDataset& d, UtilModelKind kind,
                                  const UtilTrainOptions& options);

// RMSLE of the rows whose `key` equals each distinct value, in ascending order of the value;
// the last entry is "all" over every row.
struct UtilScore {
  std::string key;
  std::size_t rows = 0;
  double rmsle = 0;
};
std::vector<UtilScore> rmsle_by(const UtilDataset& d, const Eigen::VectorXd& predicted,
                                const std::vector<std::string>& key_of_row);

} // namespace dlsim
