// A sweep's result files: where each run's directory is, how a failure is recorded, and
// results.csv, built from whatever run directories exist (so the same function serves a local
// sweep, a resumed one and `--collect` after Slurm or GNU parallel).
#pragma once

#include "sim/cli/analysis/sweep_spec.h"

#include <optional>
#include <string>

namespace dlsim {

std::string sweep_run_dir(const std::string& sweep_dir, const SweepRun& run);

// DIR/runs/<id>/error.txt holds the one-line reason a run failed.
std::string sweep_error_file(const std::string& sweep_dir, const SweepRun& run);
void record_run_error(const std::string& sweep_dir, const SweepRun& run, const std::string& error);
std::optional<std::string> recorded_run_error(const std::string& sweep_dir, const SweepRun& run);

struct CollectCounts {
  std::size_t ok = 0;
  std::size_t failed = 0;
  std::size_t missing = 0; // neither finished nor failed (not run yet, or still running)
};

// Writes DIR/results.csv: a row per run in the plan's order with the columns
//   run, <swept keys>, status (ok|failed|missing), error, <summary.json keys in its order>.
CollectCounts collect_sweep(const std::string& sweep_dir, const SweepSpec& plan);

} // namespace dlsim
