// Training, prediction and the file of the predictability classifier (predictability_classifier.h).
#include "workloads/learn/predictability_classifier.h"

#include "sim/engine/error.h"
#include "workloads/keyword_lines.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim {

namespace {

constexpr const char* kMagic = "dlsim-predictability-classifier 1";

} // namespace

PredictabilityClassifier train_predictability_classifier(const PredictabilityData& data,
                                                         std::size_t train_rows,
                                                         const std::vector<FeatureScore>& scores) {
  PredictabilityClassifier c;
  for (std::size_t f = 0; f < scores.size(); ++f)
    if (scores[f].selected) c.features.push_back(f);
  if (c.features.empty()) throw InputError("predictability classifier: no feature is selected");
  const auto train = static_cast<Eigen::Index>(train_rows);
  Eigen::MatrixXd x(train, static_cast<Eigen::Index>(c.features.size()));
  for (std::size_t k = 0; k < c.features.size(); ++k)
    x.col(static_cast<Eigen::Index>(k)) =
        data.x.col(static_cast<Eigen::Index>(c.features[k])).head(train);
  c.standardizer = learn::fit_standardizer(x);
  c.logistic = fit_logistic(learn::standardize(c.standardizer, x), data.y.head(train), 1e-3);
  return c;
}

double predictable_probability(const PredictabilityClassifier& c, std::span<const double> row) {
  Eigen::VectorXd x(static_cast<Eigen::Index>(c.features.size()));
  for (std::size_t k = 0; k < c.features.size(); ++k)
    x(static_cast<Eigen::Index>(k)) = row[c.features[k]];
  return logistic_probability(c.logistic, learn::standardize_row(c.standardizer, x));
}

std::string predictability_classifier_text(const PredictabilityClassifier& c) {
  std::string out = fmt::format("{}\nmodel logistic\nfeatures", kMagic);
  for (std::size_t f : c.features)
    out += " " + predictability_feature_names()[f];
  out += '\n';
  put_keyword_vector(out, "mean", c.standardizer.mean);
  put_keyword_vector(out, "scale", c.standardizer.scale);
  out += fmt::format("bias {}\n", c.logistic.bias);
  put_keyword_vector(out, "weights", c.logistic.weights);
  return out;
}

PredictabilityClassifier parse_predictability_classifier(std::string_view text,
                                                         const std::string& name) {
  KeywordLines in(text, name);
  if (in.at_end()) in.fail(1, fmt::format("empty file; expected '{}'", kMagic));
  {
    const KeywordLine& first = in.peek();
    if (fmt::format("{}", fmt::join(first.words, " ")) != kMagic)
      in.fail(first.number, fmt::format("not a dlsim predictability classifier (expected '{}', "
                                        "written by dlsim-predictability --out)",
                                        kMagic));
    (void)in.expect(first.words[0]);
  }
  const KeywordLine& model = in.expect("model");
  if (model.words.size() != 2 || model.words[1] != "logistic")
    in.fail(model.number, "model: expected 'logistic'");
  PredictabilityClassifier c;
  const KeywordLine& features = in.expect("features");
  const std::vector<std::string>& names = predictability_feature_names();
  for (std::size_t i = 1; i < features.words.size(); ++i) {
    const auto it = std::find(names.begin(), names.end(), features.words[i]);
    if (it == names.end())
      in.fail(features.number, fmt::format("features: unknown feature {} (expected some of: {})",
                                           quote_input(features.words[i]), fmt::join(names, " ")));
    const auto f = static_cast<std::size_t>(it - names.begin());
    if (std::find(c.features.begin(), c.features.end(), f) != c.features.end())
      in.fail(features.number,
              fmt::format("features: {} is given twice", quote_input(features.words[i])));
    c.features.push_back(f);
  }
  if (c.features.empty()) in.fail(features.number, "features: expected at least one feature");
  const std::size_t n = c.features.size();
  c.standardizer.mean = in.vector("mean", n, false, "numbers (one per feature)");
  c.standardizer.scale = in.vector("scale", n, /*positive=*/true, "numbers (one per feature)");
  const KeywordLine& bias = in.expect("bias");
  if (bias.words.size() != 2) in.fail(bias.number, "bias: expected one number");
  c.logistic.bias = in.number(bias, 1);
  c.logistic.weights = in.vector("weights", n, false, "numbers (one per feature)");
  if (!in.at_end())
    in.fail(in.peek().number,
            fmt::format("unexpected {} after the model", quote_input(in.peek().words[0])));
  return c;
}

} // namespace dlsim
