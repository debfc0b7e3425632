// `dlsim sweep`: every combination of a spec's overrides, run in parallel on the local cores,
// resumable; or emitted as a Slurm array / command list; or collected from a shared directory.
#include "sim/cli/analysis/commands.h"
#include "sim/cli/analysis/sweep_emit.h"
#include "sim/cli/analysis/sweep_results.h"
#include "sim/cli/analysis/sweep_runner.h"
#include "sim/cli/analysis/sweep_spec.h"
#include "sim/cli/common_options.h"
#include "sim/cli/count_flag.h"
#include "sim/cli/experiment.h"
#include "sim/config/path_probe.h"
#include "sim/engine/error.h"
#include "sim/report/writers.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <thread>

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace dlsim {

namespace {

int report_collected(const std::string& dir, const CollectCounts& c, const SweepSpec& plan) {
  fmt::print("sweep '{}': {} runs: {} ok, {} failed, {} missing; results in {}\n", plan.name,
             plan.runs.size(), c.ok, c.failed, c.missing, (fs::path(dir) / "results.csv").string());
  std::size_t shown = 0;
  for (const auto& run : plan.runs) {
    if (auto e = recorded_run_error(dir, run);
        e && !path_exists(fs::path(sweep_run_dir(dir, run)) / "summary.json")) {
      if (shown++ < 10) fmt::print("  failed: run {} ({}): {}\n", run.index, run.id, *e);
    }
  }
  if (shown > 10)
    fmt::print("  ... and {} more failed (see the error column of results.csv)\n", shown - 10);
  return c.failed == 0 && c.missing == 0 ? 0 : 1;
}

po::options_description sweep_options() {
  po::options_description o(
      "dlsim sweep SPEC.yaml --out DIR [options]\n"
      "dlsim sweep --collect DIR\n\n"
      "Runs every combination of the spec's overrides (docs/sweeps.md), each as `dlsim run`\n"
      "into DIR/runs/<id>/, at most --jobs at a time, and writes DIR/results.csv. Runs already\n"
      "finished with the same resolved config are not run again, so a killed sweep resumes.\n"
      "Exit code 0 when every run succeeded, 1 otherwise.\n\nOptions");
  o.add_options()("out,o", po::value<std::string>(), "the sweep directory")(
      "jobs,j", po::value<Count>(),
      "runs at once (default: the number of cores); with --emit slurm, the array's throttle")(
      "only", po::value<Count>(),
      "run only the run at this index (0-based, the grid's order); for array jobs")(
      "emit", po::value<std::string>(),
      "slurm: write DIR/sweep.sbatch (a job array) and print it; list: print one shell command per "
      "run")(
      "sbatch", po::value<std::vector<std::string>>()->composing(),
      "with --emit slurm: an extra #SBATCH line, e.g. --sbatch=--partition=debug (repeatable)")(
      "collect", po::value<std::string>(),
      "build DIR/results.csv from the runs that finished, wherever they ran")("help,h",
                                                                              "this help");
  return o;
}

// Every point's experiment is loaded (cluster, trace settings, keys and ranges) before the first
// run starts or sweep.json is written, so that a mistake common to the sweep is reported once,
// naming the run, instead of failing every run after the first has taken its time.
void check_every_run(const SweepSpec& spec, const std::string& spec_file) {
  for (const SweepRun& run : spec.runs) {
    try {
      (void)load_experiment(sweep_run_inputs(spec, run));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: run {} ({}): {}", spec_file, run.index, run.id, e.what()));
    }
  }
}

// --emit list or slurm: the runs as commands for another machine to run.
int emit_sweep(const po::variables_map& vm, const SweepSpec& spec, const std::string& spec_file,
               const std::string& dir, unsigned jobs) {
  std::string what = vm["emit"].as<std::string>();
  SweepCommand c{fs::current_path().string(), own_executable(),
                 fs::absolute(spec_file).lexically_normal().string(),
                 fs::absolute(dir).lexically_normal().string()};
  if (what == "list") {
    for (const auto& run : spec.runs)
      fmt::print("{}\n", sweep_task_command(c, std::to_string(run.index)));
    return 0;
  }
  if (what == "slurm") {
    std::vector<std::string> extra;
    if (vm.count("sbatch")) extra = vm["sbatch"].as<std::vector<std::string>>();
    std::string script = slurm_array_script(spec, c, vm.count("jobs") ? jobs : 0, extra);
    std::error_code ec;
    fs::create_directories(fs::path(dir) / "logs", ec);
    if (ec) throw InputError(fmt::format("{}/logs: cannot create: {}", dir, ec.message()));
    std::string file = (fs::path(dir) / "sweep.sbatch").string();
    write_file_atomically(file, [&](std::ostream& out) { out << script; });
    fs::permissions(file, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add, ec);
    std::cout << script;
    fmt::print(stderr, "wrote {}: submit it with `sbatch {}`, then `dlsim sweep --collect {}`\n",
               file, file, dir);
    return 0;
  }
  throw po::error(fmt::format("--emit expects slurm or list, got '{}'", what));
}

// The runs (or the one of --only) here, at most `jobs` at a time.
int run_sweep_here(const po::variables_map& vm, const SweepSpec& spec, const std::string& dir,
                   unsigned jobs) {
  std::vector<std::size_t> indices;
  if (vm.count("only")) {
    indices.push_back(vm["only"].as<Count>().value);
  } else {
    for (const auto& run : spec.runs)
      indices.push_back(run.index);
  }
  SweepTally t = run_sweep_runs(dir, spec, indices, jobs, own_executable());
  if (vm.count("only")) {
    const SweepRun& run = spec.runs[indices[0]];
    if (t.failed > 0) {
      fmt::print(stderr, "sweep: run {} ({}) failed: {}\n", run.index, run.id,
                 recorded_run_error(dir, run).value_or("?"));
      return 1;
    }
    fmt::print("sweep: run {} ({}) {}\n", run.index, run.id,
               t.already_done ? "was already done" : "done");
    return 0;
  }
  if (t.already_done > 0)
    fmt::print("sweep: {} of {} runs were already done\n", t.already_done, spec.runs.size());
  return report_collected(dir, collect_sweep(dir, spec), spec);
}

} // namespace

int command_sweep(const std::vector<std::string>& args) {
  const po::options_description o = sweep_options();
  po::options_description hidden;
  hidden.add_options()("spec", po::value<std::string>());
  po::variables_map vm;
  if (!parse_command_line(args, o, hidden, 1, vm)) return 0;

  if (vm.count("collect")) {
    if (vm.count("spec") || vm.count("emit") || vm.count("only"))
      throw po::error("--collect DIR takes no spec, --emit or --only");
    std::string dir = vm["collect"].as<std::string>();
    SweepSpec plan = read_sweep_plan(dir);
    return report_collected(dir, collect_sweep(dir, plan), plan);
  }
  if (!vm.count("spec")) throw po::error("needs a sweep spec: dlsim sweep SPEC.yaml --out DIR");
  if (!vm.count("out")) throw po::error("needs --out DIR (the sweep directory)");
  // A bundled spec (configs/sweeps/...) is found from any directory, like a bundled experiment.
  std::string spec_file = find_data_file(vm["spec"].as<std::string>(), "");
  std::string dir = vm["out"].as<std::string>();
  std::uint64_t jobs_given = vm.count("jobs") ? vm["jobs"].as<Count>().value
                                              : std::max(1U, std::thread::hardware_concurrency());
  if (jobs_given == 0) throw po::error("--jobs must be at least 1");
  if (jobs_given > 4096) throw po::error(fmt::format("--jobs {}: at most 4096", jobs_given));
  auto jobs = static_cast<unsigned>(jobs_given);

  SweepSpec spec = load_sweep_spec(spec_file);
  // Usage is checked in full before sweep.json is written: a mistyped command leaves nothing.
  if (vm.count("emit") && vm["emit"].as<std::string>() != "list" &&
      vm["emit"].as<std::string>() != "slurm")
    throw po::error(
        fmt::format("--emit expects slurm or list, got '{}'", vm["emit"].as<std::string>()));
  if (vm.count("only") && vm["only"].as<Count>().value >= spec.runs.size()) {
    throw po::error(fmt::format("--only {}: the sweep has {} runs (indices 0 to {})",
                                vm["only"].as<Count>().value, spec.runs.size(),
                                spec.runs.size() - 1));
  }
  check_every_run(spec, spec_file);
  write_sweep_plan(dir, spec);

  if (vm.count("emit")) return emit_sweep(vm, spec, spec_file, dir, jobs);

  return run_sweep_here(vm, spec, dir, jobs);
}

} // namespace dlsim
