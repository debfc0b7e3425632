// RMSLE (rmsle.h).
#include "workloads/learn/rmsle.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <cmath>

namespace dlsim::learn {

double rmsle(const Eigen::VectorXd& predicted, const Eigen::VectorXd& actual) {
  if (predicted.size() != actual.size()) {
    throw InputError(
        fmt::format("rmsle: {} predictions for {} values", predicted.size(), actual.size()));
  }
  if (actual.size() == 0) throw InputError("rmsle: no values");
  double sum = 0;
  for (Eigen::Index i = 0; i < actual.size(); ++i) {
    if (!(predicted(i) > -1) || !(actual(i) > -1)) {
      throw InputError(fmt::format("rmsle: value {} ({} predicted, {} actual) is not > -1", i,
                                   predicted(i), actual(i)));
    }
    const double d = std::log1p(predicted(i)) - std::log1p(actual(i));
    sum += d * d;
  }
  return std::sqrt(sum / static_cast<double>(actual.size()));
}

} // namespace dlsim::learn
