// The predictor's feature row (features.h).
#include "workloads/utilization/features.h"

#include <cmath>

namespace dlsim {

Eigen::VectorXd util_feature_row(const GraphFeatures& g, double batch, double device_tflops) {
  Eigen::VectorXd row(static_cast<Eigen::Index>(kUtilFeatureNames.size()));
  row << std::log1p(g.gflops_per_sample), std::log1p(batch), std::log1p(g.params_m),
      std::log1p(g.conv_layers), std::log1p(g.linear_layers), std::log1p(g.recurrent_layers),
      std::log1p(g.activation_mb), device_tflops;
  return row;
}

} // namespace dlsim
