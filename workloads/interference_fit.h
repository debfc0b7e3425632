// The co-location model fitted to measured pairs (docs/runtime.md#the-fitted-model): a job's
// slowdown when packed with one other job on a device, from what a one-minute solo profile of
// each job measures, its time per iteration on that device type:
//
//   log slowdown(a with b) = intercept + w_self x log iter_s(a) + w_other x log iter_s(b)
//
// fitted by least squares (Eigen, workloads/learn/ridge.h with lambda = 0) to Gavel's measured
// pairs (configs/interference/gavel-pairs.csv, job types in configs/models/gavel.yaml), and scored
// leaving one model (an architecture, all its batch sizes) out. `dlsim calibrate` refits and
// prints the errors; tests/interference_fit_test.cpp checks that the shipped parameters below
// equal a fresh fit.
#pragma once

#include "sim/cluster/device_catalog.h"
#include "sim/runtime/runtime_config.h"
#include "sim/workload/workload.h"
#include "workloads/model_zoo.h"

#include <string>
#include <vector>

namespace dlsim {

struct InterferenceFit {
  double intercept = 0;
  double w_self = 0;  // per unit of log(own seconds per iteration)
  double w_other = 0; // per unit of log(the partner's seconds per iteration)
  // The training rows' mean of log iter_s: the feature of a job whose time per iteration is
  // unknown (no model), so that it gets the fit's slowdown for a typical measured job.
  double mean_log_iter_s = 0;
};

// The shipped fit: `dlsim calibrate` on the bundled data prints these (scripts/calibrate).
inline constexpr InterferenceFit kShippedInterferenceFit{
    .intercept = 0.7456423851089276,
    .w_self = -0.03155190877891604,
    .w_other = 0.11376378639423178,
    .mean_log_iter_s = -2.201170454063068,
};

// The slowdown the fit predicts for a job of log iteration time `self` packed with one of
// `other` (seconds, natural log).
double fitted_slowdown(const InterferenceFit& f, double log_iter_self, double log_iter_other);

// One measured pair with its features.
struct MeasuredPair {
  std::string type, model, with;
  std::string model_arch, with_arch; // the architecture (the name less a trailing _bsN)
  double slowdown = 0;
  double log_iter_model = 0, log_iter_with = 0;
};

// The measured pairs of `pairs_file` whose models `zoo` has with an iteration time on the row's
// type, in file order (rows of other models are checked by load_interference_pairs' rules).
std::vector<MeasuredPair> load_measured_pairs(const std::string& pairs_file, const ModelZoo& zoo,
                                              const std::vector<DeviceType>& types);

// Least squares on every row. InputError when the rows cannot determine the three weights.
InterferenceFit fit_interference(const std::vector<MeasuredPair>& rows);

// Leave-one-model-out: each architecture's pairs (either job of that architecture) predicted by a
// fit to the pairs of the others. Returns |predicted speed - measured speed| / measured speed per
// row, in row order (speed = 1 / slowdown, so the error is |measured / predicted - 1|).
std::vector<double> leave_one_model_out_errors(const std::vector<MeasuredPair>& rows);

// The median and the 90th percentile (nearest rank: the ceil(0.9 n)-th smallest) of `errors`.
struct ErrorSummary {
  std::size_t n = 0;
  double median = 0, p90 = 0;
};
ErrorSummary summarize_errors(std::vector<double> errors);

// The full table of the run's pairs (InterferencePairs::complete): `measured`'s factor where it
// has one (> 0), else the fit's, from the perf table's iteration times (the training mean for
// model 0, which has none, and for a type the model cannot use).
InterferencePairs fitted_pair_table(const InterferenceFit& fit, const InterferencePairs& measured,
                                    const PerfTable& perf, std::size_t types, std::size_t models);

} // namespace dlsim
