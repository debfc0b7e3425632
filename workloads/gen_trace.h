// Synthetic traces: Poisson arrivals, log-normal durations and a GPU-demand mix, all fitted to
// the 82,247-job Philly trace (docs/traces.md gives the fit).
#pragma once

#include "sim/engine/rng.h"
#include "sim/workload/loss_curve.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace dlsim {

struct GenTraceOptions {
  std::uint64_t jobs = 1000;
  std::uint64_t seed = 1;
  double arrival_rate_per_hour = 31.47; // Philly: 82,247 jobs over 108.9 days
  double duration_mu = 6.791;           // log-normal of duration in seconds, Philly fit
  double duration_sigma = 2.156;
  double min_duration_s = 10;
  double max_duration_s = 4628226; // Philly's longest job (53.6 days)
  // Total GPUs per job and their relative weights: Philly's counts (gen_trace.cpp); `--like`
  // presets replace them (gen_trace_presets.cpp).
  std::vector<std::uint32_t> gpu_sizes = {1, 2, 4, 8, 16};
  std::vector<double> gpu_weights = {76627, 1818, 1870, 1643, 289};
  std::vector<std::string> models; // when non-empty, each job draws one uniformly
  // When non-empty, each job draws its device_type column (a type, a set `V100|K80` or a kind
  // `any`, `any-gpu`, ...; docs/traces.md) with these relative weights.
  std::vector<std::string> device_types;
  std::vector<double> device_type_weights;
  std::uint32_t users = 20;
  // When in [0, 1]: every job is given by a loss curve instead of a duration, this share of them
  // predictable (docs/aiturbo.md#generated-curves); < 0: no curves. Needs models.
  double predictable_share = -1;
};

// Iterations per second assumed to turn a drawn duration into a curve's length: gen-trace does not
// read the zoo's times (docs/aiturbo.md#generated-curves).
constexpr double kNominalIterationS = 0.1;
// Iterations between two observed losses in generated curves.
constexpr double kGeneratedLossEvery = 10;

// Parses `--device-types`: comma-separated TYPES:WEIGHT entries, e.g. "any-gpu:0.8,any:0.2";
// a missing weight is 1. Throws InputError naming the bad entry.
void parse_device_type_mix(const std::string& text, GenTraceOptions& options);

// A loss curve reaching its target after about `iterations` iterations, predictable or not
// (docs/aiturbo.md#generated-curves): start loss l0 ~ U[2.3, 6.9] (the cross-entropy of a uniform
// guess over CIFAR-10's 10 and ImageNet's 1,000 classes), asymptote c ~ U[0.05, 0.5], target
// c + 5% of (l0 - c), so that 1 / (target - c) = 20 b and a = 19 b / iterations. Predictable:
// Optimus form with 1% noise. Unpredictable: half a plateau of U[0.2, 0.6] of the length before
// the drop (1% noise), half the Optimus form under 25% noise. Every kGeneratedLossEvery.
LossCurve draw_loss_curve(Rng& rng, double iterations, bool predictable);
// The native loss_curve column's text for a curve.
std::string loss_curve_field(const LossCurve& curve);

// Writes the native CSV trace.
void generate_trace(const GenTraceOptions& options, std::ostream& out);

} // namespace dlsim
