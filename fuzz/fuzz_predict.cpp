// libFuzzer target for `dlsim predict`'s inputs (docs/utilization.md): the architectures file and
// the utilization data set, separated by a line "%%", read by load_util_dataset
// (workloads/utilization/dataset.cpp) against the built-in device catalog. It must give a data
// set or throw InputError. On a data set it gives, as `dlsim predict` does: both models are
// cross-validated leaving one architecture out and trained on every row (the stumps with 20
// rounds instead of 200, for speed); every prediction must be a utilization in [0, 100], and a
// trained predictor's file must read back as itself.
#include "fuzz/fuzz_scratch.h"
#include "sim/cluster/device_catalog.h"
#include "sim/engine/error.h"
#include "workloads/utilization/dataset.h"
#include "workloads/utilization/evaluate.h"
#include "workloads/utilization/predictor.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

void check_range(double u, const char* what) {
  if (u >= 0 && u <= 100) return;
  std::cerr << "fuzz: " << what << " predicted utilization " << u << ", outside [0, 100]\n";
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto parts = dlsim::fuzz::split_input(data, size, 2);
  parts.resize(2);
  std::string archs = dlsim::fuzz::memory_input(
      "architectures.csv", reinterpret_cast<const std::uint8_t*>(parts[0].data()), parts[0].size());
  std::string rows = dlsim::fuzz::memory_input(
      "dataset.csv", reinterpret_cast<const std::uint8_t*>(parts[1].data()), parts[1].size());
  dlsim::UtilDataset d;
  try {
    d = dlsim::load_util_dataset(archs, rows, dlsim::builtin_device_types());
  } catch (const dlsim::InputError&) {
    return 0;
  }
  dlsim::UtilTrainOptions options;
  options.boost.rounds = 20;
  for (auto kind : {dlsim::UtilModelKind::kRidge, dlsim::UtilModelKind::kStumps}) {
    Eigen::VectorXd held_out;
    try {
      held_out = dlsim::leave_one_arch_out(d, kind, options);
    } catch (const dlsim::InputError&) {
      return 0; // one architecture: nothing to leave out (exit 1 in dlsim predict)
    }
    for (Eigen::Index i = 0; i < held_out.size(); ++i)
      check_range(held_out(i), "a cross-validated model");
    dlsim::UtilPredictor p = dlsim::train_util_predictor(kind, d.x, d.util_pct, options);
    for (Eigen::Index i = 0; i < d.x.rows(); ++i)
      check_range(dlsim::predict_util_pct(p, d.x.row(i).transpose()), "the trained model");
    std::string text = dlsim::util_predictor_text(p);
    try {
      if (dlsim::util_predictor_text(dlsim::parse_util_predictor(text, "trained")) != text) {
        std::cerr << "fuzz: a trained predictor's file changed on a round trip\n";
        std::abort();
      }
    } catch (const dlsim::InputError& e) {
      std::cerr << "fuzz: a trained predictor's file does not read back: " << e.what() << "\n";
      std::abort();
    }
  }
  return 0;
}
