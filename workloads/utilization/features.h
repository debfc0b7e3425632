// The features a GPU-utilization predictor reads (Yeung et al., HotCloud'20: counts and FLOPs from
// the computation graph, the batch size and the device), as one row vector: docs/utilization.md.
#pragma once

#include <Eigen/Dense>

#include <array>

namespace dlsim {

// What the computation graph of one model says (per sample), the zoo's `graph` block and its
// FLOPs and parameters.
struct GraphFeatures {
  double gflops_per_sample = 0; // training: forward + backward
  double params_m = 0;
  double conv_layers = 0;
  double linear_layers = 0; // an LSTM or GRU layer counts as its linear maps
  double recurrent_layers = 0;
  double activation_mb = 0; // per sample
};

// The row's columns, in order. Counts and sizes enter as log(1 + v): utilization saturates, and
// models span five orders of magnitude of FLOPs. The device enters by its FP32 peak, so that a
// device type the data has never seen still gets a prediction.
inline constexpr std::array<const char*, 8> kUtilFeatureNames = {
    "log_gflops_per_sample", "log_batch",         "log_params_m",
    "log_conv_layers",       "log_linear_layers", "log_recurrent_layers",
    "log_activation_mb",     "device_tflops"};

Eigen::VectorXd util_feature_row(const GraphFeatures& g, double batch, double device_tflops);

} // namespace dlsim
