// Slurm job-array scripts and per-run command lists for sweeps across machines.
#include "sim/cli/analysis/sweep_emit.h"

#include <fmt/format.h>

namespace dlsim {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string sweep_task_command(const SweepCommand& c, const std::string& index) {
  return fmt::format("cd {} && {} sweep {} --out {} --only {}", shell_quote(c.workdir),
                     shell_quote(c.binary), shell_quote(c.spec), shell_quote(c.out), index);
}

std::string slurm_array_script(const SweepSpec& spec, const SweepCommand& c, unsigned max_parallel,
                               const std::vector<std::string>& extra) {
  std::string s = "#!/bin/bash\n";
  s += fmt::format("# dlsim sweep '{}': {} runs, one Slurm array task each (made by dlsim sweep "
                   "--emit slurm).\n",
                   spec.name, spec.runs.size());
  s += fmt::format("# Submit: sbatch {}/sweep.sbatch    Then: dlsim sweep --collect {}\n", c.out,
                   c.out);
  s += fmt::format("#SBATCH --job-name=dlsim-{}\n", spec.name);
  s += fmt::format("#SBATCH --array=0-{}{}\n", spec.runs.size() - 1,
                   max_parallel > 0 ? fmt::format("%{}", max_parallel) : "");
  s += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  s += fmt::format("#SBATCH --output={}/logs/slurm-%A_%a.out\n", c.out);
  for (const auto& e : extra)
    s += fmt::format("#SBATCH {}\n", e);
  s += "set -eu\n";
  s += fmt::format("cd {}\n", shell_quote(c.workdir));
  s += fmt::format("exec {} sweep {} --out {} --only \"$SLURM_ARRAY_TASK_ID\"\n",
                   shell_quote(c.binary), shell_quote(c.spec), shell_quote(c.out));
  return s;
}

} // namespace dlsim
