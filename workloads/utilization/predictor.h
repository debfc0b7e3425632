// A trained GPU-utilization predictor (docs/utilization.md): ridge regression on standardized
// log features, or gradient-boosted stumps, both fitted to log(1 + utilization %), i.e. to
// minimize RMSLE. Written to and read from a small text file that `dlsim predict` makes and a run
// loads (policy util-proactive's `predictor`).
#pragma once

#include "workloads/learn/boosted_stumps.h"
#include "workloads/learn/ridge.h"
#include "workloads/learn/standardize.h"
#include "workloads/utilization/features.h"

#include <Eigen/Dense>

#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

enum class UtilModelKind { kRidge, kStumps };

struct UtilModel {
  UtilModelKind kind = UtilModelKind::kRidge;
  learn::Standardizer standardizer;
  learn::RidgeModel ridge;     // kRidge
  learn::BoostedStumps stumps; // kStumps
};

// A model trained on every architecture of the data but one, for the jobs of that one: a job of
// an architecture the predictor was trained on is predicted out of sample, as a job of a new
// architecture would be.
struct UtilHeldOut {
  std::string arch;
  GraphFeatures graph; // the held-out architecture's, by which a job is matched
  UtilModel model;
};

// The model trained on every row, and the held-out models (none in a predictor trained by
// train_util_predictor alone; `dlsim predict --out` writes one per architecture).
struct UtilPredictor : UtilModel {
  std::vector<UtilHeldOut> held_out;
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
double predict_util_pct(const UtilModel& p, const Eigen::VectorXd& row);

// The model to predict a job of graph g with: the held-out model of g's architecture (every
// graph feature within a relative 1e-4 of its, the rounding of a zoo written from the data),
// else the model trained on every row.
const UtilModel& util_model_for(const UtilPredictor& p, const GraphFeatures& g);

std::string_view to_string(UtilModelKind kind);

// The file: line-based text, numbers in shortest round-trip form, so the same training gives
// the same bytes.
std::string util_predictor_text(const UtilPredictor& p);
// InputError "name:line: what is wrong" for anything but a file util_predictor_text wrote.
UtilPredictor parse_util_predictor(std::string_view text, const std::string& name);

} // namespace dlsim
