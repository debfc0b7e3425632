// AITurbo's binary classifier of predictability (slides 14-17; docs/aiturbo.md#the-classifier):
// jobs generated with known predictability (gen-trace's curves), their features (the model's,
// the framework's hyper-parameters, the running state after their first observed losses), the
// features chosen by Pearson, Spearman and Kendall correlation and Gini importance, and logistic
// regression and KNN trained and scored on them.
#pragma once

#include "workloads/model_zoo.h"

#include <Eigen/Dense>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace dlsim {

// Observed losses the running-state features read: at most kRunningSamples of a job's history.
constexpr std::size_t kRunningSamples = 32;

// Which of a job's n observed losses (at iterations every, 2 every, ..., n every) the
// running-state features read: `count` = min(n, kRunningSamples) of them, every `stride`-th
// (stride = max(1, n / kRunningSamples)), i.e. samples stride - 1, 2 stride - 1, ... (0-based),
// evenly spaced over the history at a cadence of stride x every iterations.
struct RunningWindow {
  std::uint64_t count = 0;
  std::uint64_t stride = 1;
};
RunningWindow running_window(std::uint64_t n);

// Feature names, in the order of predictability_features.
const std::vector<std::string>& predictability_feature_names();

// One job's features: its model's parameters (M), GFLOPs per sample and batch size; its workers,
// parameter servers and synchronous flag; and from its first observed losses (at iterations
// every, 2 every, ...): the relative drop first to last, the step model's fit error relative to
// the mean loss, and the relative change of the predicted length between the fit on the first
// half and on all of them (1 when either predicts no end).
std::vector<double> predictability_features(const ModelInfo& model, double workers, double ps,
                                            double sync, std::span<const double> losses,
                                            double every, double target);

struct PredictabilityData {
  Eigen::MatrixXd x; // one row per job, predictability_feature_names() columns
  Eigen::VectorXd y; // 1 = predictable
};

// `jobs` jobs: model uniform over the zoo, workers from Philly's GPU mix, 0 to 4 PS, sync or
// not, lengths from gen-trace's duration law, curves by draw_loss_curve with this share
// predictable, each seen at a point of its life drawn uniformly: n of its N observed losses,
// n uniform in 1..N, the features read from running_window(n). All from streams of `seed`.
PredictabilityData predictability_dataset(const ModelZoo& zoo, std::size_t jobs, std::uint64_t seed,
                                          double predictable_share);

struct FeatureScore {
  std::string name;
  double pearson = 0, spearman = 0, kendall = 0, gini = 0;
  bool selected = false;
};
// Kept: max(|Pearson|, |Spearman|, |Kendall|) >= 0.3 or Gini decrease >= 0.05.
std::vector<FeatureScore> score_features(const PredictabilityData& data);

struct Scores {
  double accuracy = 0, precision = 0, recall = 0;
};
struct ClassifierReport {
  std::vector<FeatureScore> features;
  std::size_t train = 0, test = 0;
  Scores logistic, knn;
};
// The first 70% of the jobs train, the rest test; the selected features standardized by the
// training rows' mean and standard deviation; logistic regression (L2 1e-3) and KNN (k = 5).
ClassifierReport evaluate_classifiers(const PredictabilityData& data);

std::string format_report(const ClassifierReport& report);

} // namespace dlsim
