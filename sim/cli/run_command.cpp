// `dlsim run`: one experiment, its result files, and a short summary on stdout.
#include "sim/cli/commands.h"
#include "sim/cli/common_options.h"
#include "sim/cli/compare_options.h"
#include "sim/cli/run_experiment.h"

#include "dlsim_version.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>
#include <optional>

#include <unistd.h>

namespace po = boost::program_options;

namespace dlsim {

namespace {

// `>` before a figure that is a lower bound: unfinished jobs counted at their time so far.
std::string hours(double s, bool censored = false) {
  return fmt::format("{}{:.1f} s ({:.2f} h)", censored ? ">" : "", s, s / 3600);
}

void print_run_summary(const RunReport& report) {
  const Experiment& e = report.experiment;
  const Summary& summary = report.summary;
  fmt::print("dlsim {}: experiment '{}', policy {} ({}), seed {}\n", DLSIM_VERSION, e.name,
             e.policy, e.placement, e.seed);
  fmt::print("  cluster    {} nodes, {} GPUs\n", e.cluster.nodes.size(), report.gpu_count);
  fmt::print("  jobs       {} ({} finished, {} unfinished{})\n", summary.jobs, summary.finished,
             summary.unfinished,
             summary.skipped_bad_jobs
                 ? fmt::format(", {} bad rows skipped", summary.skipped_bad_jobs)
                 : "");
  if (summary.deadlocked_at_s) {
    fmt::print("  deadlock   at {:.1f} s: {} jobs can never finish\n", *summary.deadlocked_at_s,
               summary.unfinished);
  }
  fmt::print("  makespan   {}\n", hours(summary.makespan_s, summary.makespan_censored));
  fmt::print("  JCT        mean {}, p95 {}{}\n", hours(summary.jct_mean_s, summary.jct_censored),
             hours(summary.jct_p95_s, summary.jct_censored),
             summary.jct_censored ? " (unfinished jobs at their time so far)" : "");
  fmt::print("  queueing   mean {}\n", hours(summary.queue_mean_s, summary.queue_censored));
  fmt::print("  GPU util   {:.3f} allocated, {:.3f} effective, {:.3f} busy\n",
             summary.gpu_util_alloc, summary.gpu_util_effective, summary.gpu_util_busy);
  // The effective and busy figures of jobs without a measured utilization are an assumption.
  if (summary.util_assumed_jobs > 0) {
    fmt::print("             (effective and busy assume utilization {} for {} of {} jobs: no "
               "model or trace value)\n",
               e.runtime.default_gpu_util, summary.util_assumed_jobs, summary.jobs);
  }
  fmt::print("  preempted  {} times, migrated {} times\n", summary.preemptions, summary.migrations);
  fmt::print("results in {}/\n", report.out_dir);
}

FileSwitch file_switch(const po::variables_map& vm, const std::string& option) {
  if (!vm.count(option)) return FileSwitch::kAuto;
  const auto& text = vm[option].as<std::string>();
  if (text == "auto") return FileSwitch::kAuto;
  if (text == "on") return FileSwitch::kOn;
  if (text == "off") return FileSwitch::kOff;
  throw po::error(fmt::format("--{} expects auto, on or off, got '{}'", option, text));
}

} // namespace

int command_run(const std::vector<std::string>& args) {
  po::options_description o(
      "dlsim run [options]\n\nRuns one experiment and writes jobs.csv, "
      "summary.json, timeseries.csv, run.yaml,\nevents.csv (up to 100,000 jobs) and "
      "timeline.json (up to 10,000 jobs)\nto the output directory. "
      "With no options: the bundled default experiment.\n\nOptions");
  add_input_options(o);
  o.add_options()(
      "out,o", po::value<std::string>(),
      "output directory (default: results/<experiment>-<policy>-<seed>/, which is not replaced "
      "when it holds a run of other inputs)")("force", po::bool_switch(),
                                              "replace the default directory even "
                                              "when it holds a run of other inputs")(
      "until", po::value<std::string>(),
      "stop at this simulated time: seconds, or a duration such as 36h or 7d (overrides until_s)")(
      "events", po::value<std::string>(),
      "events.csv, one row per job event: auto (default: on up to 100,000 jobs), on or off")(
      "timeline", po::value<std::string>(),
      "timeline.json (Chrome trace format, opens in ui.perfetto.dev): auto (default: on up to "
      "10,000 jobs), on or off")("quiet,q", po::bool_switch(),
                                 "print nothing on success (and no progress unless --progress)")(
      "progress", po::bool_switch(),
      "report simulated time, jobs done and the time left on stderr, at most once a second "
      "(default: on when stderr is a terminal and -q is not given)")(
      "check-against", po::value<std::string>(),
      "afterwards, compare summary.json with this baseline like `dlsim "
      "compare`; exit 1 on a regression")("help,h", "this help");
  add_compare_options(o);
  po::variables_map vm;
  if (!parse_command_line(args, o, vm)) return 0; // --help
  // Read the baseline first, so that a wrong path fails before the run, not after it.
  std::optional<ResultSet> baseline;
  if (vm.count("check-against")) baseline = read_result_set(vm["check-against"].as<std::string>());
  std::string out_dir = vm.count("out") ? vm["out"].as<std::string>() : "";
  OptionalOutputs optional;
  optional.events = file_switch(vm, "events");
  optional.timeline = file_switch(vm, "timeline");
  optional.force = vm["force"].as<bool>();
  const bool quiet = vm["quiet"].as<bool>();
  const bool progress = vm["progress"].as<bool>() || (!quiet && ::isatty(STDERR_FILENO) != 0);
  RunReport report = run_experiment(inputs_from(vm), out_dir, std::cerr, progress, optional);
  const Experiment& e = report.experiment;
  const Summary& summary = report.summary;
  const RunResult& result = report.result;
  const std::string& out = report.out_dir;
  double sim_s = report.sim_seconds;
  // -q prints nothing on success: warnings (stderr) and a failed check still show.
  if (!quiet) {
    fmt::print(stderr,
               "dlsim: {} events in {:.3f} s of simulation ({:.0f} events/s), {:.3f} s in all\n",
               result.events, sim_s, sim_s > 0 ? static_cast<double>(result.events) / sim_s : 0.0,
               report.wall_seconds);
  }
  if (summary.deadlocked_at_s) {
    fmt::print(stderr,
               "warning: deadlock at {} s: {} jobs never finished: policy '{}' left them waiting "
               "with no event to come; their JCT and queueing are counted up to then "
               "(summary.json deadlocked_at_s)\n",
               *summary.deadlocked_at_s, summary.unfinished, e.policy);
  }
  if (!quiet) print_run_summary(report);
  int code = 0;
  if (baseline) {
    // The regression check of `dlsim compare`, on the summary just written.
    CompareOptions options = compare_options_from(vm);
    Comparison c = compare_result_sets(*baseline, read_result_set(out + "/summary.json"), options);
    if (!quiet || c.fails > 0) {
      print_comparison(std::cout, c, baseline->file, out + "/summary.json",
                       options.changed_only || quiet);
    }
    code = c.fails == 0 ? 0 : 1;
  }
  return code;
}

} // namespace dlsim
