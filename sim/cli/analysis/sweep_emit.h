// Sweeps beyond one machine: a Slurm job-array script (one array task per run) and a list of
// shell commands (one per run, for GNU parallel over SSH hosts). Each task runs
// `dlsim sweep SPEC --out DIR --only INDEX`; `dlsim sweep --collect DIR` gathers the results.
#pragma once

#include "sim/cli/analysis/sweep_spec.h"

#include <string>
#include <vector>

namespace dlsim {

// The parts of the command every task runs, as absolute paths so that any host sharing the
// file system can run it.
struct SweepCommand {
  std::string workdir; // where the sweep was started (relative paths in the spec resolve from it)
  std::string binary;
  std::string spec;
  std::string out;
};

std::string shell_quote(const std::string& s);

// `cd WORKDIR && BINARY sweep SPEC --out OUT --only INDEX`
std::string sweep_task_command(const SweepCommand& c, const std::string& index);

// An sbatch script with `--array=0-(N-1)`, throttled to `max_parallel` tasks at once when not
// 0; each `extra` becomes an `#SBATCH` line (e.g. --partition=debug).
std::string slurm_array_script(const SweepSpec& spec, const SweepCommand& c, unsigned max_parallel,
                               const std::vector<std::string>& extra);

} // namespace dlsim
