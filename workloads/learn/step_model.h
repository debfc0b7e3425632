// The step model of Optimus and AITurbo (AITurbo slide 19; docs/aiturbo.md#step-model): the loss
// curve so far fitted to Optimus' form l(k) = 1 / (a k + b) + c, and the iterations it predicts
// to reach a target. One fit for every reader: the aiturbo and optimus policies at each round, and
// the predictability classifier's features (predictability.h), which read it the same way.
#pragma once

#include <span>

namespace dlsim {

struct StepFit {
  double a = 0, b = 0, c = 0;
  double rmse = 0; // root mean squared error of the fit, in loss units
  bool ok = false; // false with fewer than 3 points or no decreasing fit
};

// Least squares on (k, loss) pairs: for each asymptote c on a grid of kStepGrid values from 0 to
// just below the smallest loss, 1 / (loss - c) = a k + b is linear in (a, b) (solved in closed
// form); the c whose fit has the least squared error in loss units wins. No allocation: the
// aiturbo policy fits every live job at every round.
StepFit fit_step_model(std::span<const double> k, std::span<const double> loss);

// Iterations (from 0) at which the fitted curve reaches `target`: +infinity when it never does
// (not ok, a <= 0 or target <= c).
double predicted_iterations(const StepFit& fit, double target);

constexpr int kStepGrid = 32;

} // namespace dlsim
