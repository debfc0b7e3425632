// The aiturbo policy and the Optimus-like baseline (docs/aiturbo.md).
#pragma once

#include "policies/registry.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace dlsim {

PolicyEntry aiturbo_policy();
PolicyEntry optimus_policy();

// One job's predictions at one round, as the policy acts on them
// (docs/aiturbo.md#prediction-error-over-a-jobs-life).
struct AiturboPrediction {
  JobId job = 0;
  SimTime at = 0;
  double done = 0;        // iterations done
  double run_s = 0;       // seconds the job has run so far
  double iterations = 0;  // the step model's predicted total iterations (infinity: no end)
  double iteration_s = 0; // the speed model's seconds per iteration at the job's shape now
  bool predictable = false;
  // The classifier's verdict on the job's observed losses so far (1 predictable, 0 not), asked
  // at every recorded round whatever the stability rule says; -1 without a classifier.
  std::int8_t classified = -1;
};

// The aiturbo (optimus: the Optimus-like) policy of `setup`, which also appends the predictions
// of every running job it refits at a round to *log (kept alive by the caller).
std::unique_ptr<Policy> make_recording_aiturbo(const PolicySetup& setup, bool optimus,
                                               std::vector<AiturboPrediction>* log);

} // namespace dlsim
