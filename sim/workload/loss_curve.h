// Jobs that converge (docs/aiturbo.md#jobs-that-converge): a job may be given by
// a loss curve and a target loss instead of a length. The curve is hidden truth (like
// JobSpec::iterations, which the reader sets to the iterations the curve needs to reach its
// target); what a policy may read are the losses observed every `every` iterations
// (View::observed_loss), the true curve plus seeded noise.
#pragma once

#include "sim/engine/rng.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace dlsim {

enum class CurveFamily : std::uint8_t {
  kOptimus, // l(k) = 1 / (a k + b) + c: Optimus' convergence model (Peng et al., EuroSys'18)
  kPlateau, // flat at 1 / b + c for `plateau` iterations, then the Optimus form from there
};

struct LossCurve {
  CurveFamily family = CurveFamily::kOptimus;
  double a = 0;                // > 0: how fast the loss falls
  double b = 0;                // > 0: 1 / b + c is the loss at the start
  double c = 0;                // >= 0: the asymptote
  double plateau = 0;          // kPlateau: iterations before the drop
  double noise = 0;            // observed = true x exp(noise x z), z standard normal
  double target = 0;           // > c: the job stops once its true loss is at most this
  double every = 100;          // iterations between two observed losses
  std::uint64_t noise_key = 0; // FNV-1a of the job's name: the noise is the job's, not the run's
};

// The true loss after k iterations.
inline double true_loss(const LossCurve& c, double k) {
  if (c.family == CurveFamily::kPlateau) k = k > c.plateau ? k - c.plateau : 0;
  return 1.0 / (c.a * k + c.b) + c.c;
}

// The first whole iteration count at which the true loss is at most the target (at least 1):
// +infinity when the curve never gets there (target <= c).
inline double iterations_to_target(const LossCurve& c) {
  if (!(c.target > c.c) || !(c.a > 0)) return std::numeric_limits<double>::infinity();
  const double k = std::ceil((1.0 / (c.target - c.c) - c.b) / c.a);
  return std::max(1.0, (k > 0 ? k : 0) + (c.family == CurveFamily::kPlateau ? c.plateau : 0));
}

// The i-th observed loss (i = 0, 1, ...), at iteration (i + 1) x every: a pure function of the
// curve and i, so reading it costs nothing while the job runs and repeats byte for byte.
inline double observed_loss_at(const LossCurve& c, std::uint64_t i) {
  const double k = static_cast<double>(i + 1) * c.every;
  const double l = true_loss(c, k);
  if (c.noise == 0) return l;
  Rng r(c.noise_key ^ ((i + 1) * 0x9E3779B97F4A7C15ULL));
  return l * std::exp(c.noise * r.normal(0, 1));
}

} // namespace dlsim
