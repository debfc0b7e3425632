// libFuzzer target for the utilization predictor file (`dlsim predict --out`, loaded by policy
// util-packing's `predictor`): parse_util_predictor (workloads/utilization/predictor.cpp). It
// must give a predictor or throw InputError. A predictor it gives must predict a utilization in
// [0, 100] for any feature row, and its text (util_predictor_text) must read back as the same
// text: a file the reader accepts means one model.
#include "fuzz/fuzz_scratch.h"
#include "sim/engine/error.h"
#include "workloads/utilization/features.h"
#include "workloads/utilization/predictor.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  dlsim::UtilPredictor p;
  try {
    p = dlsim::parse_util_predictor(text, "fuzz.predictor");
  } catch (const dlsim::InputError&) {
    return 0;
  }
  const auto n = static_cast<Eigen::Index>(dlsim::kUtilFeatureNames.size());
  // Feature rows as util_feature_row makes them (logs of sizes: small, of either sign), and
  // extremes.
  // The model on every row and each held-out one, as a run would pick it for a job.
  std::vector<const dlsim::UtilModel*> models{&p};
  for (const dlsim::UtilHeldOut& h : p.held_out)
    models.push_back(&dlsim::util_model_for(p, h.graph));
  for (const dlsim::UtilModel* m : models) {
    for (double v : {0.0, 1.0, -1.0, 5.0, 30.0, -30.0}) {
      Eigen::VectorXd row = Eigen::VectorXd::Constant(n, v);
      double u = dlsim::predict_util_pct(*m, row);
      if (!(u >= 0 && u <= 100)) {
        std::cerr << "fuzz: predicted utilization " << u << " outside [0, 100] for features " << v
                  << "\n";
        std::abort();
      }
    }
  }
  std::string once = dlsim::util_predictor_text(p);
  dlsim::fuzz::require_utf8(once, "util_predictor_text");
  std::string twice;
  try {
    twice = dlsim::util_predictor_text(dlsim::parse_util_predictor(once, "written"));
  } catch (const dlsim::InputError& e) {
    std::cerr << "fuzz: the predictor's own text does not read back: " << e.what() << "\n";
    std::abort();
  }
  if (once != twice) {
    std::cerr << "fuzz: the predictor's text changed on a round trip:\n" << once << "--\n" << twice;
    std::abort();
  }
  return 0;
}
