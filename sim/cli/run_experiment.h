// One experiment run, from inputs to result files: the body of `dlsim run`, shared with the
// sweep (which checks a finished run's run.yaml against render_run_yaml before skipping it).
#pragma once

#include "sim/cli/experiment.h"
#include "sim/report/summary.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace dlsim {

struct RunReport {
  Experiment experiment;
  Summary summary;
  RunResult result;
  std::string out_dir; // where the files went
  std::size_t gpu_count = 0;
  double sim_seconds = 0;  // wall time inside the event loop
  double wall_seconds = 0; // wall time in all, reading included
};

// Optional result files: `auto` writes them for runs small enough that they stay small
// (docs/outputs.md#eventscsv).
enum class FileSwitch : std::uint8_t { kAuto, kOn, kOff };
constexpr std::size_t kEventsAutoMaxJobs = 100'000;
constexpr std::size_t kTimelineAutoMaxJobs = 10'000;

struct OptionalOutputs {
  FileSwitch events = FileSwitch::kAuto;
  FileSwitch timeline = FileSwitch::kAuto;
  // Replace the default directory even when it holds a run of other inputs (--force).
  bool force = false;
};

// Why the run may not write into the default directory `dir`: it holds another run's results
// (its run.yaml differs from `run_yaml` in more than dlsim_version), named by the first key that
// differs. Empty when the directory is free, holds no run.yaml, or the same inputs' run.

// `name` made safe as one file name: characters other than letters, digits and "-_.+" become
// '_', a leading '.' gets a '_' before it (so never "..") and it is cut to 100 characters.
std::string safe_file_name(const std::string& name);

// The directory `dlsim run` writes to when --out is not given: results/<name-policy-seed>,
// made a safe file name, so an experiment name like "../x" stays inside results/.
std::string default_out_dir(const Experiment& e);

// The text of run.yaml for an experiment: its resolved tree plus the dlsim version.
std::string render_run_yaml(const Experiment& e);

std::string default_dir_conflict(const std::string& dir, const std::string& run_yaml);

// Loads the experiment, runs it and writes jobs.csv, timeseries.csv, events.csv and timeline.json
// (as `optional` says), run.yaml, provenance.json and, last, summary.json into `out_dir` (empty:
// default_out_dir, refused when default_dir_conflict finds another run there, unless
// optional.force). Trace warnings go to `warn`; progress reports go to stderr when `progress`
// is set (progress.h: a rewritten line on a terminal, lines in a log).
RunReport run_experiment(const ExperimentInputs& inputs, const std::string& out_dir,
                         std::ostream& warn, bool progress = false,
                         const OptionalOutputs& optional = {});

} // namespace dlsim
