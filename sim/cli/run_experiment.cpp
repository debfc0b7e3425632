// The body of `dlsim run`: prepare, simulate, summarize, write the result directory.
#include "sim/cli/run_experiment.h"

#include "sim/config/yaml_numbers.h"

#include "policies/registry.h"
#include "sim/cli/policy_setup.h"
#include "sim/cli/prepare.h"
#include "sim/cli/progress.h"
#include "sim/cli/provenance.h"
#include "sim/cli/yaml_flatten.h"
#include "sim/config/yaml_reader.h"
#include "sim/engine/error.h"
#include "sim/report/event_log.h"
#include "sim/report/frag_meter.h"
#include "sim/report/result_dir.h"
#include "sim/report/summary_metric.h"
#include "sim/report/timeline.h"
#include "sim/report/writers.h"
#include "sim/runtime/simulation.h"
#include "workloads/failure_log.h"

#include "dlsim_version.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

namespace fs = std::filesystem;

namespace dlsim {

std::string safe_file_name(const std::string& name) {
  std::string safe;
  for (char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.' || c == '+';
    safe.push_back(plain ? c : '_');
  }
  // No hidden names and no "." or "..": a leading dot becomes '_'.
  if (safe.empty() || safe[0] == '.') safe.insert(safe.begin(), '_');
  return safe.substr(0, 100);
}

namespace {

bool wanted(FileSwitch s, std::size_t jobs, std::size_t auto_max_jobs) {
  return s == FileSwitch::kOn || (s == FileSwitch::kAuto && jobs <= auto_max_jobs);
}

} // namespace

std::string default_out_dir(const Experiment& e) {
  return fmt::format("results/{}",
                     safe_file_name(fmt::format("{}-{}-{}", e.name, e.policy, e.seed)));
}

std::string render_run_yaml(const Experiment& e) {
  YAML::Node run = YAML::Clone(e.resolved);
  run["dlsim_version"] = DLSIM_VERSION;
  // Absolute paths, so that `dlsim run -e run.yaml` from any directory reads the same files.
  for (YAML::Node file : {run["trace"]["file"], run["models"],
                          run["runtime"]["interference"]["pairs"], run["failures"]["log"]}) {
    if (file.IsScalar() && !file.Scalar().empty() && file.Scalar() != "none")
      file = fs::absolute(file.Scalar()).lexically_normal().string();
  }
  shorten_doubles(run);
  YAML::Emitter em;
  em << run;
  return fmt::format(
      "# The resolved configuration of this run: `dlsim run -e run.yaml` repeats it.\n{}\n",
      em.c_str());
}

std::string default_dir_conflict(const std::string& dir, const std::string& run_yaml) {
  fs::path earlier = fs::path(dir) / "run.yaml";
  std::error_code ec;
  if (!fs::exists(earlier, ec)) return "";
  std::vector<std::pair<std::string, std::string>> before, now;
  try {
    // Through the checked reader: aliases expanded without bound made a small file flatten for
    // hours.
    flatten_yaml(load_yaml_file(earlier.string()), "", before);
  } catch (const InputError&) {
    return fmt::format("{} is not a run.yaml dlsim can read", earlier.string());
  } catch (const YAML::Exception&) {
    return fmt::format("{} is not a run.yaml dlsim can read", earlier.string());
  }
  flatten_yaml(YAML::Load(run_yaml), "", now);
  std::map<std::string, std::string> a(before.begin(), before.end());
  std::map<std::string, std::string> b(now.begin(), now.end());
  a.erase("dlsim_version");
  b.erase("dlsim_version");
  if (a == b) return "";
  for (const auto& [key, value] : now) {
    if (key == "dlsim_version") continue;
    auto it = a.find(key);
    if (it == a.end()) return fmt::format("its run.yaml has no {}", key);
    if (it->second != value)
      return fmt::format("its run.yaml has {}: {}, this run {}", key, it->second, value);
  }
  for (const auto& [key, value] : a)
    if (!b.count(key)) return fmt::format("its run.yaml has {}, this run none", key);
  return "";
}

namespace {

// The output directory is checked before the simulation: a bad --out fails now. The default
// directory is named after the experiment, policy and seed only, so another trace, cluster or
// --set would land in the same place: refused rather than overwritten.
void check_default_dir(const Experiment& e, const std::string& out_dir, bool force,
                       const std::string& run_yaml) {
  if (!out_dir.empty() || force) return;
  std::string conflict = default_dir_conflict(default_out_dir(e), run_yaml);
  if (!conflict.empty()) {
    throw InputError(fmt::format(
        "{}/ holds the results of a run with other inputs ({}); give --out DIR for this run, "
        "or --force to replace them",
        default_out_dir(e), conflict));
  }
}

// The observers whose files are optional, and whether each is on.
struct OptionalObservers {
  EventLog event_log;
  Timeline timeline;
  FragMeter frag_meter;
  bool events = false;
  bool with_timeline = false;
  bool sharing = false;
};

void add_optional_observers(Simulation& sim, OptionalObservers& o, const Experiment& e,
                            const Workload& w, const OptionalOutputs& optional) {
  o.events = wanted(optional.events, w.jobs.size(), kEventsAutoMaxJobs);
  if (o.events) sim.add_observer(&o.event_log);
  o.with_timeline = wanted(optional.timeline, w.jobs.size(), kTimelineAutoMaxJobs);
  if (o.with_timeline) sim.add_observer(&o.timeline);
  o.sharing = e.fragmentation || e.inflate > 0;
  if (o.sharing) sim.add_observer(&o.frag_meter);
}

// What the summary metrics are asked to measure (summary_metric.h).
MetricSetup metric_setup(const Experiment& e, const OptionalObservers& o) {
  MetricSetup setup;
  setup.measure_from_s = e.measure_from_s;
  setup.measure_to_s = e.measure_to_s;
  if (o.sharing) setup.fragmentation = &o.frag_meter;
  return setup;
}

void summarize_run(RunReport& report, const Simulation& sim, const UtilizationMeter& meter,
                   const MetricSet& metrics, const Prepared& p) {
  const Experiment& e = p.experiment;
  report.summary =
      summarize(sim.state(), report.result, meter, e.policy, e.seed, metrics.job_metrics());
  report.summary.util_assumed_jobs = p.assumed_util_jobs;
  report.summary.metric_keys =
      metrics.keys(RunEnd{sim.state(), report.result, report.summary, meter});
  report.gpu_count = sim.state().gpu_count;
}

// jobs.csv and the optional files, in the order a killed run's test expects.
void write_run_files(const ResultDir& out, const Simulation& sim, const RunReport& report,
                     const Prepared& p, const OptionalObservers& o) {
  const Experiment& e = p.experiment;
  write_file_atomically(out.file("jobs.csv"),
                        [&](std::ostream& s) { write_jobs_csv(s, sim.state(), report.result); });
  test_kill_point("writing");
  if (o.events) {
    write_file_atomically(out.file("events.csv"), [&](std::ostream& s) {
      o.event_log.write_csv(s, e.cluster, p.workload);
    });
  }
  if (o.with_timeline) {
    write_file_atomically(out.file("timeline.json"), [&](std::ostream& s) {
      o.timeline.write_json(s, e.cluster, p.workload);
    });
  }
  if (o.sharing) {
    write_file_atomically(out.file("allocation.csv"), [&](std::ostream& s) {
      write_allocation_csv(s, o.frag_meter.buckets());
    });
    write_file_atomically(out.file("fragmentation.csv"), [&](std::ostream& s) {
      write_fragmentation_csv(s, o.frag_meter.rows());
    });
  }
  if (sim.state().failures.on) {
    // The failures that happened, as a log that `failures.log` replays (docs/failures.md).
    write_file_atomically(out.file("failures.csv"), [&](std::ostream& s) {
      write_failure_log(s, e.cluster, sim.state().failures.happened);
    });
  }
}

// The experiment's policy made from `setup`, once the policy's own checks of the jobs and of
// failures pass. The policy may keep references into `setup`: it outlives the run.
std::unique_ptr<Policy> make_checked_policy(const Experiment& e, const PolicyEntry& entry,
                                            const PolicySetup& setup, const Workload& workload) {
  if (entry.check_jobs) entry.check_jobs(setup, workload.job_names);
  auto policy = entry.make(setup);
  if (e.runtime.failures.enabled && !entry.handles_failures) {
    throw InputError(fmt::format("{}: failures.enabled: policy '{}' does not handle failures; "
                                 "those that do are marked [failures] in `dlsim list policies` "
                                 "(docs/failures.md)",
                                 e.source_file, e.policy));
  }
  return policy;
}

} // namespace

RunReport run_experiment(const ExperimentInputs& inputs, const std::string& out_dir,
                         std::ostream& warn, bool progress, const OptionalOutputs& optional) {
  auto wall_start = std::chrono::steady_clock::now();
  Prepared p = prepare(inputs, warn);
  RunReport report;
  const Experiment& e = p.experiment;
  const PolicyEntry& entry = find_policy(e.policy);
  PolicySetup setup = make_policy_setup(entry, parse_placement(e.placement), e.policy_params);
  setup.seed = e.seed;
  const std::unique_ptr<Policy> policy = make_checked_policy(e, entry, setup, p.workload);

  // The output directory is checked and staged before the simulation.
  std::string run_yaml = render_run_yaml(e);
  check_default_dir(e, out_dir, optional.force, run_yaml);
  ResultDir out(out_dir.empty() ? default_out_dir(e) : out_dir);
  std::ofstream timeseries(out.file("timeseries.csv"), std::ios::binary);
  if (!timeseries) throw InputError(fmt::format("{}: cannot write", out.file("timeseries.csv")));
  write_timeseries_header(timeseries);

  Simulation sim(e.cluster, p.workload, e.runtime, *policy,
                 PolicyInfo{e.policy, uses_oracle(entry, setup.params)});
  UtilizationMeter meter;
  Sampler sampler(from_seconds(e.sample_s, "report.sample_s"),
                  [&](const Sample& s) { write_timeseries_row(timeseries, s); });
  SimTime until = e.until_s >= 0 ? from_seconds(e.until_s, "until_s") : kNever;
  ProgressLine progress_line(p.workload.jobs.back().request.submit, until, stderr,
                             ::isatty(STDERR_FILENO) != 0);
  sim.add_observer(&meter);
  sim.add_observer(&sampler);
  OptionalObservers optional_observers;
  add_optional_observers(sim, optional_observers, e, p.workload, optional);
  MetricSet metrics(summary_metrics(), metric_setup(e, optional_observers));
  metrics.observe(sim);
  if (progress) sim.add_observer(&progress_line);
  auto sim_start = std::chrono::steady_clock::now();
  report.result = sim.run(until);
  auto sim_end = std::chrono::steady_clock::now();
  sim.release_bookkeeping();
  summarize_run(report, sim, meter, metrics, p);
  if (sampler.doublings() > 0) {
    fmt::print(warn,
               "note: timeseries.csv: {} rows; the sampling period doubled {} times to {} s to "
               "bound them (docs/outputs.md)\n",
               sampler.rows(), sampler.doublings(), to_seconds(sampler.period()));
  }

  timeseries.flush();
  if (!timeseries)
    throw InputError(fmt::format("{}: write failed (disk full?)", out.file("timeseries.csv")));
  timeseries.close();
  write_run_files(out, sim, report, p, optional_observers);
  write_file_atomically(out.file("run.yaml"), [&](std::ostream& s) { s << run_yaml; });
  // What made the run and what it cost, apart from the deterministic files
  // (docs/outputs.md#provenancejson).
  RunTimes times;
  times.sim_s = std::chrono::duration<double>(sim_end - sim_start).count();
  times.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  times.cpu_s = process_cpu_seconds();
  write_file_atomically(out.file("provenance.json"), [&](std::ostream& s) {
    write_provenance_json(s, e, inputs, run_yaml, times);
  });
  // summary.json last: its presence marks a complete result directory.
  write_file_atomically(out.file("summary.json"),
                        [&](std::ostream& s) { write_summary_json(s, report.summary); });
  out.commit();

  report.sim_seconds = std::chrono::duration<double>(sim_end - sim_start).count();
  report.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  report.out_dir = out_dir.empty() ? default_out_dir(e) : out_dir;
  report.experiment =
      p.experiment; // a copy: `sim` still refers to p's cluster until it is destroyed
  return report;
}

} // namespace dlsim
