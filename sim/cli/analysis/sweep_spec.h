// A sweep: a base experiment and the overrides of each run, expanded from a spec's grid and
// list (docs/sweeps.md). Also the plan, the expanded sweep saved in its output directory so
// that `--collect DIR` can build results.csv without the spec.
#pragma once

#include "sim/cli/experiment.h"

#include <string>
#include <utility>
#include <vector>

namespace dlsim {

using Overrides = std::vector<std::pair<std::string, std::string>>; // dotted key, YAML value text

struct SweepRun {
  std::size_t index = 0; // position in the grid's order: the Slurm array index, the results.csv row
  std::string id;        // stable: from the override values, never from when it ran
  Overrides overrides;   // the swept keys of this run, in column order (absent keys left out)
};

struct SweepSpec {
  std::string name;
  std::string spec_file;
  std::string experiment;        // the base experiment YAML, as found
  Overrides fixed;               // `set:`: the same for every run
  std::vector<std::string> keys; // every swept key, in column order
  std::vector<SweepRun> runs;
};

// The most runs a spec may expand to, so that a typo such as `seed: 1..1000000` stops early.
inline constexpr std::size_t kMaxSweepRuns = 100000;

SweepSpec load_sweep_spec(const std::string& file);

// "<values joined by _>-<crc32 of the sorted key=value list>", e.g. "fifo_1_4-3b1f09a2".
std::string sweep_run_id(const Overrides& overrides);

// What `dlsim run` gets for this run: the base experiment with the fixed, then the run's,
// overrides.
ExperimentInputs sweep_run_inputs(const SweepSpec& spec, const SweepRun& run);

// DIR/sweep.json: the expanded spec (written atomically, so concurrent array tasks may all write
// it).
void write_sweep_plan(const std::string& dir, const SweepSpec& spec);
SweepSpec read_sweep_plan(const std::string& dir);

} // namespace dlsim
