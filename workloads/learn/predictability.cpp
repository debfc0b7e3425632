#include "workloads/learn/predictability.h"

#include "sim/engine/rng.h"
#include "workloads/gen_trace.h"
#include "workloads/learn/feature_rank.h"
#include "workloads/learn/knn.h"
#include "workloads/learn/logistic.h"
#include "workloads/learn/predictability_classifier.h"
#include "workloads/learn/standardize.h"
#include "workloads/learn/step_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim {

namespace {

Scores score(const std::vector<int>& predicted, const Eigen::VectorXd& truth) {
  double tp = 0, fp = 0, fn = 0, right = 0;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    const int t = truth(static_cast<Eigen::Index>(i)) > 0.5 ? 1 : 0;
    right += predicted[i] == t ? 1 : 0;
    tp += predicted[i] == 1 && t == 1 ? 1 : 0;
    fp += predicted[i] == 1 && t == 0 ? 1 : 0;
    fn += predicted[i] == 0 && t == 1 ? 1 : 0;
  }
  return {right / static_cast<double>(predicted.size()), tp + fp > 0 ? tp / (tp + fp) : 0,
          tp + fn > 0 ? tp / (tp + fn) : 0};
}

} // namespace

RunningWindow running_window(std::uint64_t n) {
  return {std::min<std::uint64_t>(n, kRunningSamples),
          std::max<std::uint64_t>(1, n / kRunningSamples)};
}

const std::vector<std::string>& predictability_feature_names() {
  static const std::vector<std::string> names = {
      "params_m", "gflops_per_sample", "batch_size", "workers",    "ps",
      "sync",     "loss_drop",         "fit_error",  "pred_change"};
  return names;
}

std::vector<double> predictability_features(const ModelInfo& model, double workers, double ps,
                                            double sync, std::span<const double> losses,
                                            double every, double target) {
  std::vector<double> k(losses.size());
  for (std::size_t i = 0; i < k.size(); ++i)
    k[i] = static_cast<double>(i + 1) * every;
  double drop = 0, error = 1, change = 1;
  if (!losses.empty()) {
    drop = 1.0 - losses.back() / losses.front();
    double mean = 0;
    for (double l : losses)
      mean += l / static_cast<double>(losses.size());
    const StepFit fit = fit_step_model(k, losses);
    const double all = predicted_iterations(fit, target);
    const std::size_t half = losses.size() / 2;
    const double first =
        predicted_iterations(fit_step_model(std::span(k).first(half), losses.first(half)), target);
    if (fit.ok) error = fit.rmse / mean;
    if (std::isfinite(all) && std::isfinite(first) && all > 0)
      change = std::min(1.0, std::abs(all - first) / all);
  }
  return {model.params_m, model.gflops_per_sample, model.batch_size, workers, ps, sync, drop, error,
          change};
}

PredictabilityData predictability_dataset(const ModelZoo& zoo, std::size_t jobs, std::uint64_t seed,
                                          double predictable_share) {
  Rng pick = Rng::stream(seed, "predictability.jobs");
  Rng curves = Rng::stream(seed, "predictability.curves");
  Rng seen = Rng::stream(seed, "predictability.observed");
  const GenTraceOptions g; // the duration law and GPU mix of gen-trace
  PredictabilityData d;
  const std::size_t f = predictability_feature_names().size();
  d.x.resize(static_cast<Eigen::Index>(jobs), static_cast<Eigen::Index>(f));
  d.y.resize(static_cast<Eigen::Index>(jobs));
  std::vector<double> losses;
  const std::vector<std::size_t> drawable = drawn_models(zoo);
  for (std::size_t j = 0; j < jobs; ++j) {
    const ModelInfo& m = zoo.models[drawable[pick.below(drawable.size())]];
    const double workers = g.gpu_sizes[pick.weighted(g.gpu_weights)];
    const double ps = static_cast<double>(pick.below(5));
    const double sync = pick.uniform01() < 0.5 ? 1 : 0;
    const double duration = std::clamp(std::round(pick.lognormal(g.duration_mu, g.duration_sigma)),
                                       g.min_duration_s, g.max_duration_s);
    const bool predictable = curves.uniform01() < predictable_share;
    LossCurve c = draw_loss_curve(
        curves, std::max(100.0, std::round(duration / kNominalIterationS)), predictable);
    c.noise_key = fnv1a64(fmt::format("job{}", j));
    // The job seen after n of the N losses it will ever show, n uniform in 1..N.
    const auto total = static_cast<std::uint64_t>(std::floor(iterations_to_target(c) / c.every));
    const std::uint64_t n = total > 0 ? 1 + seen.below(total) : 0;
    const RunningWindow win = running_window(n);
    losses.clear();
    for (std::uint64_t i = 0; i < win.count; ++i)
      losses.push_back(observed_loss_at(c, (i + 1) * win.stride - 1));
    const std::vector<double> row = predictability_features(
        m, workers, ps, sync, losses, static_cast<double>(win.stride) * c.every, c.target);
    for (std::size_t k = 0; k < f; ++k)
      d.x(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(k)) = row[k];
    d.y(static_cast<Eigen::Index>(j)) = predictable ? 1 : 0;
  }
  return d;
}

std::vector<FeatureScore> score_features(const PredictabilityData& data) {
  std::vector<FeatureScore> out;
  const std::vector<double> y(data.y.data(), data.y.data() + data.y.size());
  for (Eigen::Index c = 0; c < data.x.cols(); ++c) {
    std::vector<double> x(static_cast<std::size_t>(data.x.rows()));
    for (Eigen::Index r = 0; r < data.x.rows(); ++r)
      x[static_cast<std::size_t>(r)] = data.x(r, c);
    FeatureScore s{predictability_feature_names()[static_cast<std::size_t>(c)], pearson(x, y),
                   spearman(x, y), kendall_tau_b(x, y), gini_decrease(x, y)};
    s.selected =
        std::max({std::abs(s.pearson), std::abs(s.spearman), std::abs(s.kendall)}) >= 0.3 ||
        s.gini >= 0.05;
    out.push_back(s);
  }
  return out;
}

ClassifierReport evaluate_classifiers(const PredictabilityData& data) {
  ClassifierReport r;
  r.features = score_features(data);
  const Eigen::Index n = data.x.rows();
  const Eigen::Index train = n * 7 / 10;
  r.train = static_cast<std::size_t>(train);
  r.test = static_cast<std::size_t>(n - train);
  const bool any = std::any_of(r.features.begin(), r.features.end(),
                               [](const FeatureScore& f) { return f.selected; });
  if (!any || train == 0 || train == n) return r;
  // Logistic regression as the policy reads it (predictability_classifier.h); KNN on the same
  // standardized features.
  const PredictabilityClassifier lr = train_predictability_classifier(data, r.train, r.features);
  Eigen::MatrixXd x(n, static_cast<Eigen::Index>(lr.features.size()));
  for (std::size_t c = 0; c < lr.features.size(); ++c)
    x.col(static_cast<Eigen::Index>(c)) = data.x.col(static_cast<Eigen::Index>(lr.features[c]));
  x = learn::standardize(lr.standardizer, x);
  const Eigen::MatrixXd xt = x.topRows(train);
  const Eigen::VectorXd yt = data.y.head(train);
  std::vector<int> by_lr, by_knn;
  for (Eigen::Index i = train; i < n; ++i) {
    const Eigen::VectorXd row = x.row(i).transpose();
    by_lr.push_back(logistic_probability(lr.logistic, row) >= 0.5 ? 1 : 0);
    by_knn.push_back(knn_predict(xt, yt, row, 5));
  }
  r.logistic = score(by_lr, data.y.tail(n - train));
  r.knn = score(by_knn, data.y.tail(n - train));
  return r;
}

std::string format_report(const ClassifierReport& r) {
  std::string out = "| feature | Pearson | Spearman | Kendall | Gini decrease | selected |\n"
                    "|---|---|---|---|---|---|\n";
  for (const auto& f : r.features) {
    out += fmt::format("| {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {} |\n", f.name, f.pearson,
                       f.spearman, f.kendall, f.gini, f.selected ? "yes" : "no");
  }
  out += fmt::format("\n{} jobs train, {} test\n\n", r.train, r.test);
  out += "| classifier | accuracy | precision | recall |\n|---|---|---|---|\n";
  out += fmt::format("| logistic regression | {:.3f} | {:.3f} | {:.3f} |\n", r.logistic.accuracy,
                     r.logistic.precision, r.logistic.recall);
  out += fmt::format("| KNN (k = 5) | {:.3f} | {:.3f} | {:.3f} |\n", r.knn.accuracy,
                     r.knn.precision, r.knn.recall);
  return out;
}

} // namespace dlsim
