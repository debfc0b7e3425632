// The predictability classifier the aiturbo policy consults (docs/aiturbo.md#the-classifier):
// logistic regression on the selected, standardized features of predictability_features,
// trained by dlsim-predictability --out and read back from the small text file it writes
// (configs/models/predictability-classifier.txt).
#pragma once

#include "workloads/learn/logistic.h"
#include "workloads/learn/predictability.h"
#include "workloads/learn/standardize.h"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

struct PredictabilityClassifier {
  std::vector<std::size_t> features; // indices into predictability_feature_names(), in use order
  learn::Standardizer standardizer;  // of those features
  LogisticModel logistic;
};

// Logistic regression (L2 1e-3) on the first `train_rows` rows of `data`, on the features
// `scores` marks selected, standardized by those rows. InputError when none is selected.
PredictabilityClassifier train_predictability_classifier(const PredictabilityData& data,
                                                         std::size_t train_rows,
                                                         const std::vector<FeatureScore>& scores);

// P(predictable) for one job's full feature row (predictability_features order).
double predictable_probability(const PredictabilityClassifier& c, std::span<const double> row);

// The file: line-based text, numbers in shortest round-trip form (the same training gives the
// same bytes).
std::string predictability_classifier_text(const PredictabilityClassifier& c);
// InputError "name:line: what is wrong" for anything but a file the function above wrote.
PredictabilityClassifier parse_predictability_classifier(std::string_view text,
                                                         const std::string& name);

} // namespace dlsim
