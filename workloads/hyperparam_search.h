// Hyper-parameter search sessions (the AutoML workload of Gandiva, Xiao et al., OSDI'18): a
// session submits N trials of one model at once; each trial's final accuracy is drawn from a
// distribution, its accuracy grows along a learning curve with its progress, and successive
// halving (Jamieson and Talwalkar, AISTATS'16) keeps the best fraction at fixed progress points.
// This file is the model: the session files, the trials and their truth. The controller that
// kills trials during a run is policies/search_sessions.cpp. docs/gandiva.md explains both.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace dlsim {

struct SearchSession {
  std::string name;          // trial k is the job "<name>-t<k>"
  double submit_s = 0;       // all trials are submitted at once
  std::uint32_t trials = 40; // Gandiva's AutoML experiment: 40 trials
  std::uint32_t gpus_per_trial = 1;
  std::string model;      // zoo model of every trial ("" = none)
  double budget_s = 3600; // one full trial, alone on the reference device
  // Final accuracy of a trial: uniform in [accuracy_low, accuracy_high].
  double accuracy_low = 0.60;
  double accuracy_high = 0.92;
  double target = 0.90;    // the session's goal: a model at least this accurate
  double curve_tau = 0.25; // learning-curve time constant, in fractions of the budget
  std::vector<double> rungs{1.0 / 9, 1.0 / 3}; // progress fractions where halving decides
  double keep = 1.0 / 3;                       // fraction kept at each rung (1/eta, eta = 3)
  double noise = 0.01;                         // std. dev. of the accuracy observed at a rung
  // `rule: sync` waits at each rung for every live trial (successive halving); `rule: async`
  // judges each trial when it gets there against the results so far (ASHA, Li et al., MLSys'20).
  bool asynchronous = false;
  std::uint64_t seed = 1;
};

// One trial's hidden truth, drawn from the session's seed.
struct SearchTrial {
  std::string job; // job id in the trace
  std::uint32_t index = 0;
  double accuracy = 0; // final accuracy after the full budget
  // Progress fraction at which the accuracy reaches the target (the trial then stops: the
  // session's goal is met); nullopt when the trial never gets there.
  std::optional<double> target_progress;
  std::vector<double> rung_noise; // observation noise at each rung
  // Work of the trial's job, as a fraction of the budget: target_progress, else 1.
  [[nodiscard]] double work_fraction() const { return target_progress.value_or(1.0); }
};

// Accuracy after a fraction p of the budget: a * (1 - exp(-p / tau)) / (1 - exp(-1 / tau)).
double learning_curve(double final_accuracy, double tau, double p);
// The progress fraction where learning_curve reaches `target`, or nullopt if it never does.
std::optional<double> progress_to_reach(double final_accuracy, double tau, double target);

// The trials of a session, in index order (a pure function of the session).
std::vector<SearchTrial> draw_trials(const SearchSession& s);

// Reads a sessions file: `sessions:` followed by a list of mappings with the keys above (all
// but `name` and `submit_s` optional). InputError naming file:line: key for bad input.
std::vector<SearchSession> load_search_sessions(const std::string& file);
// The same from the file's text, already read (the automl policy's `sessions` data file).
std::vector<SearchSession> parse_search_sessions(const std::string& text, const std::string& file);

// Adds the sessions' trials to a native CSV trace (text in `background`, as gen-trace writes
// it): rows merged in submit order (background first on ties), a `model` column added when a
// session names a model the background lacks.
void merge_trials_into_trace(const std::string& background,
                             const std::vector<SearchSession>& sessions, std::ostream& out);

// The truth of every trial, one row each, for reports (scripts/gandiva-automl reads it):
// session,job,submit_s,accuracy,target,reaches_target,target_progress,work_s,budget_s
void write_trials_truth(const std::vector<SearchSession>& sessions, std::ostream& out);

} // namespace dlsim
