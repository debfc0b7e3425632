// `dlsim run`: one experiment, its result files, and a short summary on stdout.
#include "policies/registry.h"
#include "sim/cli/commands.h"
#include "sim/cli/common_options.h"
#include "sim/cli/prepare.h"
#include "sim/cli/progress.h"
#include "sim/report/writers.h"
#include "sim/engine/error.h"
#include "sim/runtime/simulation.h"

#include "dlsim_version.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <unistd.h>

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace dlsim {

namespace {

std::string hours(double s) { return fmt::format("{:.1f} s ({:.2f} h)", s, s / 3600); }

}  // namespace

int command_run(const std::vector<std::string>& args) {
  po::options_description o("dlsim run [options]\n\nRuns one experiment and writes jobs.csv, summary.json, timeseries.csv and\nrun.yaml to the output directory. With no options: the bundled default experiment.\n\nOptions");
  add_input_options(o);
  o.add_options()
      ("out,o", po::value<std::string>(), "output directory (default: results/<experiment>-<policy>-<seed>/)")
      ("until", po::value<double>(), "stop at this simulated time, in seconds (overrides until_s)")
      ("quiet,q", po::bool_switch(), "print nothing on success")
      ("help,h", "this help");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(o).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << o << '\n';
    return 0;
  }
  auto wall_start = std::chrono::steady_clock::now();
  Prepared p = prepare(inputs_from(vm), std::cerr);
  const Experiment& e = p.experiment;
  const PolicyEntry& entry = find_policy(e.policy);
  PolicySetup setup{parse_placement(e.placement), PolicyParams(e.policy_params, e.policy)};
  auto policy = entry.make(setup);

  Simulation sim(e.cluster, p.workload, e.runtime, *policy, PolicyInfo{e.policy, entry.oracle});
  UtilizationMeter meter;
  Sampler sampler(from_seconds(e.sample_s));
  ProgressLine progress(p.workload.jobs.back().request.submit);
  sim.add_observer(&meter);
  sim.add_observer(&sampler);
  if (::isatty(STDERR_FILENO) && p.workload.jobs.size() >= 10000) sim.add_observer(&progress);
  SimTime until = e.until_s >= 0 ? from_seconds(e.until_s) : kNever;
  auto sim_start = std::chrono::steady_clock::now();
  RunResult result = sim.run(until);
  auto sim_end = std::chrono::steady_clock::now();
  Summary summary = summarize(sim.state(), result, meter.allocated_gpu_s(), meter.effective_gpu_s(),
                              e.policy, e.seed);

  std::string out = vm.count("out") ? vm["out"].as<std::string>()
                                    : fmt::format("results/{}-{}-{}", e.name, e.policy, e.seed);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create the output directory: {}", out, ec.message()));
  write_file_atomically(out + "/jobs.csv", [&](std::ostream& s) { write_jobs_csv(s, sim.state()); });
  write_file_atomically(out + "/timeseries.csv", [&](std::ostream& s) { write_timeseries_csv(s, sampler.samples()); });
  write_file_atomically(out + "/run.yaml", [&](std::ostream& s) {
    YAML::Node run = YAML::Clone(e.resolved);
    run["dlsim_version"] = DLSIM_VERSION;
    YAML::Emitter em;
    em << run;
    s << "# The resolved configuration of this run: `dlsim run -e run.yaml` repeats it.\n"
      << em.c_str() << '\n';
  });
  // summary.json last: its presence marks a complete result directory.
  write_file_atomically(out + "/summary.json", [&](std::ostream& s) { write_summary_json(s, summary); });

  double sim_s = std::chrono::duration<double>(sim_end - sim_start).count();
  double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  fmt::print(stderr, "dlsim: {} events in {:.3f} s of simulation ({:.0f} events/s), {:.3f} s in all\n",
             result.events, sim_s, sim_s > 0 ? static_cast<double>(result.events) / sim_s : 0.0, wall_s);
  if (summary.unfinished > 0 && !result.hit_until) {
    fmt::print(stderr, "warning: {} jobs never finished: policy '{}' left them waiting with nothing running\n",
               summary.unfinished, e.policy);
  }
  if (vm["quiet"].as<bool>()) return 0;
  fmt::print("dlsim {}: experiment '{}', policy {} ({}), seed {}\n", DLSIM_VERSION, e.name, e.policy,
             e.placement, e.seed);
  fmt::print("  cluster    {} nodes, {} GPUs\n", e.cluster.nodes.size(), sim.state().gpu_count);
  fmt::print("  jobs       {} ({} finished, {} unfinished{})\n", summary.jobs, summary.finished,
             summary.unfinished,
             summary.skipped_bad_jobs ? fmt::format(", {} bad rows skipped", summary.skipped_bad_jobs) : "");
  fmt::print("  makespan   {}\n", hours(summary.makespan_s));
  fmt::print("  JCT        mean {}, p95 {}\n", hours(summary.jct_mean_s), hours(summary.jct_p95_s));
  fmt::print("  queueing   mean {}\n", hours(summary.queue_mean_s));
  fmt::print("  GPU util   {:.3f} allocated, {:.3f} effective\n", summary.gpu_util_alloc, summary.gpu_util_effective);
  fmt::print("  preempted  {} times, migrated {} times\n", summary.preemptions, summary.migrations);
  fmt::print("results in {}/\n", out);
  return 0;
}

}  // namespace dlsim
