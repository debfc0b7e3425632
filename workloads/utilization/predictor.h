// A trained GPU-utilization predictor (docs/utilization.md): ridge regression on standardized
// log features, or gradient-boosted stumps, both fitted to log(1 + utilization %), i.e. to
// minimize RMSLE. Written to and read from a small text file that `dlsim predict` makes and a run
// loads (policy util-proactive's `predictor`).
#pragma once

#include "workloads/learn/boosted_stumps.h"
#include "workloads/learn/ridge.h"
#include "workloads/learn/standardize.h"

#include <Eigen/Dense>

#include <string>
#include <string_view>

namespace dlsim {

enum class UtilModelKind { kRidge, kStumps };

struct UtilPredictor {
  UtilModelKind kind = UtilModelKind::kRidge;
  learn::Standardizer standardizer;
  learn::RidgeModel ridge;     // kRidge
  learn::BoostedStumps stumps; // kStumps
};

struct UtilTrainOptions {
  double lambda = 1.0; // ridge penalty on standardized features
  learn::BoostOptions boost{.rounds = 200, .learning_rate = 0.1, .min_leaf = 2};
};

// x: one util_feature_row per sample; util_pct: solo utilization in percent (0..100).
UtilPredictor train_util_predictor(UtilModelKind kind, const Eigen::MatrixXd& x,
                                   const Eigen::VectorXd& util_pct,
                                   const UtilTrainOptions& options);
// Predicted utilization in percent, bounded to [0, 100] (a utilization cannot leave that range;
// the bound is part of the model, docs/utilization.md).
double predict_util_pct(const UtilPredictor& p, const Eigen::VectorXd& row);

std::string_view to_string(UtilModelKind kind);

// The file: line-based text, numbers in shortest round-trip form, so the same training gives
// the same bytes.
std::string util_predictor_text(const UtilPredictor& p);
// InputError "name:line: what is wrong" for anything but a file util_predictor_text wrote.
UtilPredictor parse_util_predictor(std::string_view text, const std::string& name);

} // namespace dlsim
