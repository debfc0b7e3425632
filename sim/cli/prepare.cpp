#include "sim/cli/prepare.h"

#include "sim/cli/scaling_check.h"
#include "sim/runtime/measured_scaling.h"
#include "workloads/batch_size_plan.h"
#include "workloads/failure_log.h"
#include "workloads/interference_fit.h"
#include "workloads/interference_pairs.h"
#include "workloads/measured_throughputs.h"

#include "sim/config/path_probe.h"
#include "sim/engine/error.h"
#include "workloads/build_workload.h"
#include "workloads/formats/format_guess.h"
#include "workloads/formats/registry.h"
#include "workloads/trace_inflate.h"
#include "workloads/trace_reshape.h"
#include "workloads/trace_select.h"
#include "workloads/trace_text.h"

#include "workloads/gen_trace.h"
#include "workloads/gen_trace_presets.h"

#include <fmt/ostream.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace dlsim {

namespace {

// Gavel's measured pairs (docs/runtime.md#measured-pairs), read by default under the fitted model.
constexpr const char* kBundledInterferencePairs = "configs/interference/gavel-pairs.csv";

// The run's pair table (docs/runtime.md#co-location-and-interference): the measured pairs of
// runtime.interference.pairs (by default, under the fitted model, the bundled Gavel set, whose
// rows of models this zoo does not know are skipped); under the fitted model, completed by the
// fit for every pair not measured on that type.
InterferencePairs interference_table(const Experiment& e, const Prepared& p) {
  const RuntimeConfig& r = e.runtime;
  const bool fitted = r.interference_model == "fitted";
  std::string file = r.interference_pairs_file;
  const bool bundled = file.empty() && fitted;
  if (bundled) file = find_data_file(kBundledInterferencePairs, "");
  InterferencePairs measured;
  if (!file.empty() && file != "none") {
    measured = load_interference_pairs(file, e.cluster.types, p.zoo, p.workload.models, !bundled);
  }
  if (!fitted) return measured;
  return fitted_pair_table(kShippedInterferenceFit, measured, p.workload.perf,
                           e.cluster.types.size(), p.workload.models.size());
}

// Under analytic scaling, the measured scaling of the run's models that Pollux profiled, on the
// cluster's T4s (docs/scaling.md#measured-scaling-in-the-runtime); null when nothing applies.
std::shared_ptr<const MeasuredScalingTable> measured_scaling_table(const Experiment& e,
                                                                   const Prepared& p) {
  if (e.runtime.scaling != "analytic" || !e.runtime.measured_scaling) return nullptr;
  const auto& types = e.cluster.types;
  auto t = std::find_if(types.begin(), types.end(),
                        [](const DeviceType& d) { return d.name == kPolluxDeviceType; });
  const std::string dir = find_data_file("traces/pollux-profiles", "");
  if (t == types.end() || !is_directory_path(dir)) return nullptr;
  MeasuredScalingTable table = build_measured_scaling(dir, p.zoo, p.workload.models,
                                                      static_cast<DeviceTypeId>(t - types.begin()));
  if (std::find(table.has.begin(), table.has.end(), true) == table.has.end()) return nullptr;
  return std::make_shared<const MeasuredScalingTable>(std::move(table));
}

// trace.generate: the trace `dlsim gen-trace` would write with these settings, read back by the
// native reader (through a private temporary file, removed at once), so that a generated trace
// and the same trace written to a file give the same run.
Trace generated_trace(const Experiment& e, const ModelZoo& zoo, const TraceFormat& native,
                      const ReadOptions& read_options) {
  const Experiment::Generate& gen = e.generate;
  GenTraceOptions g = gen.like.empty() ? GenTraceOptions{} : gen_trace_preset(gen.like);
  g.jobs = gen.jobs;
  g.seed = gen.seed >= 0 ? static_cast<std::uint64_t>(gen.seed) : e.seed;
  if (gen.arrival_rate > 0) g.arrival_rate_per_hour = gen.arrival_rate;
  if (gen.models) {
    for (std::size_t m : drawn_models(zoo))
      g.models.push_back(zoo.models[m].name);
  }
  if (!gen.device_types.empty()) parse_device_type_mix(gen.device_types, g);
  std::string path = (fs::temp_directory_path() / "dlsim-trace-XXXXXX").string();
  int fd = ::mkstemp(path.data());
  if (fd < 0) throw InputError(fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
  ::close(fd);
  struct Remove {
    std::string path;
    ~Remove() { std::remove(path.c_str()); }
  } remove{path};
  {
    std::ofstream out(path, std::ios::binary);
    generate_trace(g, out);
    out.flush();
    if (!out) throw InputError(fmt::format("{}: write failed (disk full?)", path));
  }
  return native.read(path, read_options);
}

// The experiment's trace, read by its format's reader (guessed for `auto`) or generated. A
// header error on a file that is plainly another format says which format it looks like.
Trace read_experiment_trace(Experiment& e, const ModelZoo& zoo, std::ostream& warn) {
  if (e.trace_format == "auto") {
    FormatGuess guess = guess_trace_format(e.trace_file);
    fmt::print(warn, "format: guessed {} from {}\n", guess.format, guess.reason);
    e.trace_format = guess.format;
    e.resolved["trace"]["format"] = guess.format; // run.yaml records what was read
  }
  const TraceFormat& format = find_trace_format(e.trace_format);
  ReadOptions read_options = e.trace_options;
  read_options.skip_bad_jobs = e.skip_bad_jobs;
  read_options.pollux_profiles = find_data_file("traces/pollux-profiles", "");
  Trace trace;
  try {
    trace = e.generate.jobs > 0 ? generated_trace(e, zoo, format, read_options)
                                : format.read(e.trace_file, read_options);
  } catch (const InputError& error) {
    // A header error on a file that is plainly another format (a real trace read as native, the
    // default): say which format it looks like.
    std::string what = error.what();
    if (what.find(":1: ") == std::string::npos) throw;
    std::string hint;
    try {
      FormatGuess guess = guess_trace_format(e.trace_file);
      if (guess.format != e.trace_format) {
        hint = fmt::format(
            "\n  (the file looks like a {} trace from {}: give --format {} or --format auto)",
            guess.format, guess.reason, guess.format);
      }
    } catch (const InputError&) {
      // No format matches either: the error stands alone.
    }
    if (hint.empty()) throw;
    throw InputError(what + hint);
  }
  return trace;
}

// trace.throughputs: the measured throughputs (and with trace.batch_sizes: shockwave, the batch
// size plans) applied to the trace's jobs.
void apply_throughputs(Trace& trace, ModelZoo& zoo, const Experiment& e) {
  if (e.throughputs_file.empty()) return;
  const MeasuredThroughputs measured = read_measured_throughputs(e.throughputs_file);
  if (e.batch_sizes == "shockwave") {
    apply_measured_throughputs(
        trace, zoo, measured, e.cluster.types,
        [&trace](TraceJob& job, const std::string& type_model, MeasuredModels& models) {
          plan_batch_sizes(trace, job, type_model, models);
        });
    // The reader's note that such jobs keep their batch size no longer holds.
    if (trace.batch_size_note >= 0)
      trace.warnings.erase(trace.warnings.begin() + trace.batch_size_note);
  } else {
    apply_measured_throughputs(trace, zoo, measured, e.cluster.types);
  }
}

void print_trace_warnings(const Trace& trace, std::ostream& warn) {
  for (const auto& w : trace.warnings)
    fmt::print(warn, "warning: {}\n", w);
  if (trace.skipped > 0) {
    fmt::print(warn, "warning: skipped {} bad rows (--skip-bad-jobs); the first {}:\n",
               trace.skipped, trace.skip_reasons.size());
    for (const auto& r : trace.skip_reasons)
      fmt::print(warn, "  {}\n", r);
  }
}

// A job too big for the cluster is most often a trace replayed on the wrong (e.g. the default)
// cluster: say which one it was and how to choose another. Called in the handler of `error`.
[[noreturn]] void rethrow_unfit(const InputError& error, const Experiment& e,
                                std::size_t oversized) {
  std::string what = error.what();
  if (what.find("cannot fit") == std::string::npos &&
      what.find("largest usable device") == std::string::npos &&
      what.find("can run on this cluster") == std::string::npos) {
    throw; // the error being handled, as it was
  }
  throw InputError(fmt::format(
      "{}\n  (the cluster is {}, {} GPUs; choose another with --cluster, e.g. a bundled "
      "configs/clusters/*.yaml,{} or skip such jobs with --skip-bad-jobs)",
      what, e.cluster_file.empty() ? "inline in " + e.source_file : e.cluster_file,
      e.cluster.count_of_kind(DeviceKind::kGpu),
      oversized == 0 ? std::string()
                     : fmt::format(" split the workers of the {} jobs whose workers no node "
                                   "holds with --set trace.reshape=fit-nodes,",
                                   oversized)));
}

// Device types no job of the trace can use.
void print_idle_types(const std::vector<DeviceTypeId>& idle, const Experiment& e,
                      std::ostream& warn) {
  if (idle.empty()) return;
  std::vector<std::string> what;
  what.reserve(idle.size());
  for (DeviceTypeId t : idle)
    what.push_back(fmt::format("{} {}", e.cluster.count_of_type(t), e.cluster.types[t].name));
  fmt::print(warn,
             "warning: no job of the trace can ever use the cluster's {} devices (jobs that "
             "name no device_type run on GPUs only; accept more types with device_type, e.g. "
             "'any' or 'V100|XeonPhi', or gen-trace --device-types)\n",
             fmt::join(what, ", "));
}

} // namespace

Prepared prepare(const ExperimentInputs& inputs, std::ostream& warn) {
  Prepared p;
  p.experiment = load_experiment(inputs);
  Experiment& e = p.experiment;
  p.zoo = load_model_zoo(e.models_file);
  Trace trace = read_experiment_trace(e, p.zoo, warn);
  check_trace_text(trace);
  apply_throughputs(trace, p.zoo, e);
  print_trace_warnings(trace, warn);
  SelectionReport selected = select_trace(trace, e.selection, e.seed);
  for (const auto& line : selected.lines())
    fmt::print(warn, "trace: {}\n", line);
  // -1 is the key's "off"; given on the command line it is a tune, and not above 0.
  for (const auto& [key, value] : inputs.overrides) {
    if (key == "trace.inflate" && !(e.inflate > 0)) {
      throw InputError(fmt::format("--set trace.inflate: must be positive, got {}", value));
    }
  }
  if (e.inflate > 0) {
    InflateReport inflated =
        inflate_trace(trace, e.inflate, e.cluster.count_of_kind(DeviceKind::kGpu), e.seed);
    fmt::print(warn, "trace: {}\n", inflated.line());
  }
  // Jobs whose workers no node holds: split them (trace.reshape), or name the key in the error.
  std::size_t oversized = 0;
  if (e.reshape == "fit-nodes") {
    ReshapeReport reshaped = reshape_to_nodes(trace, e.cluster);
    if (reshaped.reshaped > 0) {
      fmt::print(warn,
                 "trace: split the workers of {} jobs to fit a node (trace.reshape), e.g. {}\n",
                 reshaped.reshaped, reshaped.first_example);
    }
  }
  WorkloadOptions options;
  options.reference_device = e.reference_device;
  options.assign_models = e.assign_models;
  options.seed = e.seed;
  options.skip_bad_jobs = e.skip_bad_jobs;
  options.default_gpu_util = e.runtime.default_gpu_util;
  options.unknown_models_on_duration = e.unknown_models == "duration";
  std::vector<std::string> build_warnings;
  options.warnings = &build_warnings;
  // Counted by build_workload as it goes: a pass of its own over every job cost 10 ms at a
  // million jobs (fit-nodes leaves no job oversized).
  if (e.reshape != "fit-nodes") options.oversized_workers = &oversized;
  std::vector<DeviceTypeId> idle; // unusable_device_types, found as the jobs are built
  options.unusable_types = &idle;
  options.assumed_util_jobs = &p.assumed_util_jobs;
  // The reasons printed so far are the reader's; resolution (unknown models, jobs that cannot
  // fit) keeps its own first few.
  const std::size_t read_skips = trace.skipped;
  trace.skip_reasons.clear();
  try {
    p.workload = build_workload(std::move(trace), p.zoo, e.cluster, options);
  } catch (const InputError& error) {
    rethrow_unfit(error, e, oversized);
  }
  for (const auto& w : build_warnings)
    fmt::print(warn, "warning: {}\n", w);
  e.runtime.failures.seed = e.seed;
  if (!e.runtime.failures.log_file.empty()) {
    if (!e.runtime.failures.enabled) {
      throw InputError(
          fmt::format("{}: failures.log: given, but failures.enabled is false", e.source_file));
    }
    e.runtime.failures.log = load_failure_log(e.runtime.failures.log_file, e.cluster);
  }
  e.runtime.interference_pairs = interference_table(e, p);
  e.runtime.measured_scaling_table = measured_scaling_table(e, p);
  print_idle_types(idle, e, warn);
  if (std::size_t more = p.workload.skipped_bad_jobs - read_skips; more > 0) {
    fmt::print(warn,
               "warning: skipped {} jobs that cannot run here (--skip-bad-jobs); the first {}:\n",
               more, p.workload.resolution_skips.size());
    for (const auto& r : p.workload.resolution_skips)
      fmt::print(warn, "  {}\n", r);
  }
  return p;
}

} // namespace dlsim
