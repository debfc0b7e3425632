#include "policies/aiturbo/prediction_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : (v[h - 1] + v[h]) / 2;
}

// Nearest rank: the smallest value with at least 90% of the values at or below it.
double p90(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(v.size())));
  return v[rank - 1];
}

} // namespace

std::vector<LifeError> life_errors(const std::vector<AiturboPrediction>& log,
                                   std::span<const JobTruth> truth,
                                   std::span<const double> fractions) {
  std::vector<LifeError> rows;
  std::vector<double> step, speed, time;
  std::vector<bool> seen(truth.size());
  for (double f : fractions) {
    for (const bool only_predictable : {false, true}) {
      LifeError r;
      r.fraction = f;
      r.predictable = only_predictable;
      step.clear();
      speed.clear();
      time.clear();
      std::fill(seen.begin(), seen.end(), false);
      for (const AiturboPrediction& p : log) {
        if (p.job >= truth.size() || seen[p.job]) continue;
        const JobTruth& t = truth[p.job];
        if (!(t.iterations > 0) || !(t.run_s > 0) || p.done < f * t.iterations) continue;
        seen[p.job] = true; // the first round at or past f of the job
        if (only_predictable && !p.predictable) continue;
        const double left = t.iterations - p.done;
        const double left_s = t.run_s - p.run_s;
        if (!(left > 0) || !(left_s > 0)) continue; // finished at this round: nothing to predict
        ++r.jobs;
        if (!std::isfinite(p.iterations)) {
          ++r.no_end;
          continue;
        }
        const double predicted_left = std::max(0.0, p.iterations - p.done);
        step.push_back(std::abs(predicted_left - left) / left);
        const double true_speed = left_s / left;
        speed.push_back(std::abs(p.iteration_s - true_speed) / true_speed);
        time.push_back(std::abs(predicted_left * p.iteration_s - left_s) / left_s);
      }
      r.step_median = median(step);
      r.step_p90 = p90(step);
      r.speed_median = median(speed);
      r.speed_p90 = p90(speed);
      r.time_median = median(time);
      r.time_p90 = p90(time);
      rows.push_back(r);
    }
  }
  return rows;
}

std::string format_life_errors(const std::vector<LifeError>& rows) {
  std::string out =
      "| done | jobs | count | no end | remaining iterations (step) | s per iteration (speed) | "
      "remaining time (both) |\n|---|---|---|---|---|---|---|\n";
  for (const LifeError& r : rows) {
    out +=
        fmt::format("| {:.0f}% | {} | {} | {} | {:.1f}% / {:.1f}% | {:.1f}% / {:.1f}% | "
                    "{:.1f}% / {:.1f}% |\n",
                    100 * r.fraction, r.predictable ? "held predictable" : "all with a fit", r.jobs,
                    r.no_end, 100 * r.step_median, 100 * r.step_p90, 100 * r.speed_median,
                    100 * r.speed_p90, 100 * r.time_median, 100 * r.time_p90);
  }
  return out;
}

std::vector<ClassifierScore> classifier_scores(const std::vector<AiturboPrediction>& log,
                                               std::span<const JobTruth> truth,
                                               std::span<const std::int8_t> predictable,
                                               std::span<const double> fractions) {
  std::vector<ClassifierScore> rows;
  std::vector<bool> seen(truth.size());
  for (double f : fractions) {
    ClassifierScore r;
    r.fraction = f;
    std::size_t right = 0, called = 0, called_right = 0;
    std::fill(seen.begin(), seen.end(), false);
    for (const AiturboPrediction& p : log) {
      if (p.job >= truth.size() || p.job >= predictable.size() || seen[p.job]) continue;
      const JobTruth& t = truth[p.job];
      if (!(t.iterations > 0) || predictable[p.job] < 0 || p.done < f * t.iterations) continue;
      seen[p.job] = true; // the first round at or past f of the job
      if (p.classified < 0) continue;
      const bool is = predictable[p.job] == 1;
      const bool says = p.classified == 1;
      ++r.jobs;
      if (is) ++r.predictable;
      if (is == says) ++right;
      if (says) ++called;
      if (says && is) ++called_right;
    }
    if (r.jobs > 0) r.accuracy = static_cast<double>(right) / static_cast<double>(r.jobs);
    if (called > 0) r.precision = static_cast<double>(called_right) / static_cast<double>(called);
    if (r.predictable > 0)
      r.recall = static_cast<double>(called_right) / static_cast<double>(r.predictable);
    rows.push_back(r);
  }
  return rows;
}

std::string format_classifier_scores(const std::vector<ClassifierScore>& rows) {
  std::string out = "| done | jobs | predictable | accuracy | precision | recall |\n"
                    "|---|---|---|---|---|---|\n";
  for (const ClassifierScore& r : rows) {
    out += fmt::format("| {:.0f}% | {} | {} | {:.3f} | {:.3f} | {:.3f} |\n", 100 * r.fraction,
                       r.jobs, r.predictable, r.accuracy, r.precision, r.recall);
  }
  return out;
}

} // namespace dlsim
