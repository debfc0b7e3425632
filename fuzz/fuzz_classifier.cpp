// libFuzzer target for the predictability classifier file (dlsim-predictability --out, loaded by
// policy aiturbo's `classifier`): parse_predictability_classifier
// (workloads/learn/predictability_classifier.cpp). It must give a classifier or throw
// InputError. A classifier it gives must give a probability in [0, 1] for any feature row, and
// its text must read back as the same text.
#include "fuzz/fuzz_scratch.h"
#include "sim/engine/error.h"
#include "workloads/learn/predictability.h"
#include "workloads/learn/predictability_classifier.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  dlsim::PredictabilityClassifier c;
  try {
    c = dlsim::parse_predictability_classifier(text, "fuzz.classifier");
  } catch (const dlsim::InputError&) {
    return 0;
  }
  const std::size_t n = dlsim::predictability_feature_names().size();
  for (double v : {0.0, 1.0, -1.0, 100.0, 1e6, -1e6}) {
    std::vector<double> row(n, v);
    double p = dlsim::predictable_probability(c, row);
    if (!(p >= 0 && p <= 1)) {
      std::cerr << "fuzz: probability " << p << " outside [0, 1] for features " << v << "\n";
      std::abort();
    }
  }
  std::string once = dlsim::predictability_classifier_text(c);
  dlsim::fuzz::require_utf8(once, "predictability_classifier_text");
  std::string twice;
  try {
    twice = dlsim::predictability_classifier_text(
        dlsim::parse_predictability_classifier(once, "written"));
  } catch (const dlsim::InputError& e) {
    std::cerr << "fuzz: the classifier's own text does not read back: " << e.what() << "\n";
    std::abort();
  }
  if (once != twice) {
    std::cerr << "fuzz: the classifier's text changed on a round trip:\n"
              << once << "--\n"
              << twice;
    std::abort();
  }
  return 0;
}
