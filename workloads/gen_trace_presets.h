// `dlsim gen-trace --like NAME`: generator settings fitted to the published statistics of a real
// trace (Philly; the four Helios clusters). docs/traces.md#gen-trace---like gives each fit.
#pragma once

#include "workloads/gen_trace.h"

#include <string>
#include <vector>

namespace dlsim {

struct GenTracePreset {
  std::string name;        // "helios-venus"
  std::string description; // one line, for --help and errors
  GenTraceOptions options; // jobs and seed keep their defaults
};

const std::vector<GenTracePreset>& gen_trace_presets();
// The preset's options; an unknown name is an InputError listing the known ones.
GenTraceOptions gen_trace_preset(const std::string& name);

// The mean of min(max(X, lo), hi) for X = exp(N(mu, sigma^2)): what the generator's clamped
// log-normal durations average to (before rounding to whole seconds). With Phi the standard
// normal CDF, a = ln lo, b = ln hi:
//   lo Phi((a - mu)/sigma) + e^(mu + sigma^2/2) [Phi((b - mu - sigma^2)/sigma)
//   - Phi((a - mu - sigma^2)/sigma)] + hi (1 - Phi((b - mu)/sigma)).
double clamped_lognormal_mean(double mu, double sigma, double lo, double hi);

} // namespace dlsim
