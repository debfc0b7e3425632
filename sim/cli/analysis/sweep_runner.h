// Running a sweep's runs: a bounded pool of child processes, each `dlsim run` with the run's
// overrides, so that a crash in one run cannot take the sweep down and each run stays
// single-threaded. Finished runs (summary.json present, run.yaml as expected) are skipped.
#pragma once

#include "sim/cli/analysis/sweep_spec.h"

#include <string>
#include <vector>

namespace dlsim {

// The dlsim binary that runs the runs: this process's own executable.
std::string own_executable();

// True when the run's directory holds a summary.json and a run.yaml equal to the one this run
// would write now (so an edited base experiment makes every run stale).
bool sweep_run_complete(const std::string& sweep_dir, const SweepSpec& spec, const SweepRun& run);

struct SweepTally {
  std::size_t already_done = 0;
  std::size_t ran_ok = 0;
  std::size_t failed = 0;
};

// Runs the runs at `indices` (those not complete) with at most `jobs` at a time, printing a
// progress line to stderr. A failed run is recorded in its error.txt; the others go on.
SweepTally run_sweep_runs(const std::string& sweep_dir, const SweepSpec& spec,
                          const std::vector<std::size_t>& indices, unsigned jobs,
                          const std::string& binary);

} // namespace dlsim
