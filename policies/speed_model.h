// AITurbo's speed model (slide 18; docs/aiturbo.md#speed-model): seconds per iteration of a
// PS/worker job as a function of its workers w and parameter servers p,
//   T(w, p) = t0 / w + t1 + t2 / p      (t2 = 0 for ring all-reduce jobs),
// forward and backward split over the workers (t0), a fixed part (t1) and the push, update and
// pull that more servers share (t2). Fitted online by ridge least squares (Eigen) to the times
// measured at the shapes the job has run at, pulled towards a prior from public model facts so
// that one measured shape already gives a usable model.
#pragma once

#include <cstdint>
#include <vector>

namespace dlsim {

struct SpeedModel {
  double prior[3] = {0, 0, 0}; // t0, t1, t2 before any measurement
  double theta[3] = {0, 0, 0}; // the current fit
  struct Shape {
    std::uint32_t workers = 0, ps = 0;
    double mean_s = 0; // mean measured seconds per iteration at this shape
    std::uint32_t count = 0;
  };
  std::vector<Shape> shapes;
  // The shape observed last (an index in shapes) and its mean, kept beside the model: a job
  // measured at the same speed again (every round while nothing moves) changes no mean and no
  // fit, so observe_speed only counts it, in `repeats`, without reading shapes; they are added
  // to that shape's count before any other observation.
  std::uint32_t last = 0, last_workers = 0, last_ps = 0, repeats = 0;
  double last_mean_s = 0;
};

// Starts a model at its prior (theta = prior).
SpeedModel make_speed_model(double t0, double t1, double t2);
// Adds one measurement at (w, p) and refits.
void observe_speed(SpeedModel& m, std::uint32_t workers, std::uint32_t ps, double seconds);
// The model's seconds per iteration at (w >= 1, p; p = 0 for ring jobs).
double predict_speed(const SpeedModel& m, std::uint32_t workers, std::uint32_t ps);

// Weight of the prior against the measurements: each parameter's prior counts as kSpeedPrior
// measurements.
constexpr double kSpeedPrior = 0.5;

} // namespace dlsim
