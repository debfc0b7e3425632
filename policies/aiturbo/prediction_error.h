// The prediction error of aiturbo's step and speed models over a job's life
// (docs/aiturbo.md#prediction-error-over-a-jobs-life): at 10%, 25%, 50% and 75% of each job's
// iterations, the predictions of the first round at or past that point against what happened.
#pragma once

#include "policies/aiturbo/aiturbo.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace dlsim {

// One job's truth: its total iterations and the seconds it ran in all (0 for a job without a
// curve or unfinished: left out).
struct JobTruth {
  double iterations = 0;
  double run_s = 0;
};

// Relative errors |predicted - true| / true at one point of the jobs' lives, over one set of jobs.
struct LifeError {
  double fraction = 0;      // of the job's iterations done
  bool predictable = false; // only the jobs the policy held predictable at that round
  std::size_t jobs = 0;     // jobs with a round at or past the point
  std::size_t no_end = 0;   // of them, whose step model predicted no end (left out below)
  // Medians and 90th percentiles (nearest rank) over the others: remaining iterations (step model),
  // seconds per iteration over the rest of the job (speed model), remaining run time (both).
  double step_median = 0, step_p90 = 0;
  double speed_median = 0, speed_p90 = 0;
  double time_median = 0, time_p90 = 0;
};

// `log` in time order (as the policy appends it); truth by job id.
std::vector<LifeError> life_errors(const std::vector<AiturboPrediction>& log,
                                   std::span<const JobTruth> truth,
                                   std::span<const double> fractions);

// A Markdown table of the rows.
std::string format_life_errors(const std::vector<LifeError>& rows);

// The classifier's verdicts on the jobs of the run at one point of their lives, against what the
// jobs are (the trace's truth, which the policy never reads).
struct ClassifierScore {
  double fraction = 0;         // of the job's iterations done
  std::size_t jobs = 0;        // jobs with a verdict at a round at or past the point
  std::size_t predictable = 0; // of them, predictable in truth
  double accuracy = 0;         // right verdicts / jobs
  double precision = 0;        // predictable in truth / called predictable (0 if none called)
  double recall = 0;           // called predictable / predictable in truth (0 if none)
};

// `log` in time order; truth by job id (jobs with iterations > 0 count); predictable by job id,
// the truth of each job (1 predictable, 0 not, -1: left out).
std::vector<ClassifierScore> classifier_scores(const std::vector<AiturboPrediction>& log,
                                               std::span<const JobTruth> truth,
                                               std::span<const std::int8_t> predictable,
                                               std::span<const double> fractions);
std::string format_classifier_scores(const std::vector<ClassifierScore>& rows);

} // namespace dlsim
