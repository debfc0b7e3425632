#include "sim/cli/experiment_keys.h"

#include "sim/runtime/runtime_keys.h"
#include "workloads/formats/registry.h"

#include <iterator>
#include <utility>

namespace dlsim {

namespace {

std::vector<ConfigKey> trace_keys(Experiment& e) {
  TraceSelection& sel = e.selection;
  std::vector<ConfigKey> keys = {
      {.path = "trace.file",
       .type = KeyType::kText,
       .field = &e.trace_file,
       .doc = "The trace ([traces.md](traces.md)). `trace: FILE` is short for "
              "`trace: {file: FILE}`. Required unless `trace.generate` is given.",
       .default_text = "none"},
      {.path = "trace.generate.jobs",
       .type = KeyType::kInteger,
       .field = &e.generate.jobs,
       .doc = "Generate the trace instead of reading `trace.file`: this many jobs, as `dlsim "
              "gen-trace` makes them ([experiments.md](experiments.md#generated-traces)). 0: "
              "read `trace.file`. At most 100 million (about 30 GB of memory in a run).",
       .min = 0,
       .max = 1e8},
      {.path = "trace.generate.arrival_rate",
       .type = KeyType::kNumber,
       .field = &e.generate.arrival_rate,
       .doc = "Mean arrivals per hour of the generated trace (`gen-trace --arrival-rate`); it "
              "overrides a preset's.",
       .min = 0,
       .min_open = true,
       .unset = -1,
       .default_text = "the preset's, else 31.47 (Philly)"},
      {.path = "trace.generate.like",
       .type = KeyType::kText,
       .field = &e.generate.like,
       .doc = "A `gen-trace --like` preset (`philly`, `helios-venus`, ...), or empty for "
              "gen-trace's defaults.",
       .default_text = "empty"},
      {.path = "trace.generate.seed",
       .type = KeyType::kNumber,
       .field = &e.generate.seed,
       .doc = "The generator's seed, a whole number; `-1` uses the run's `seed`, so that a sweep "
              "over `seed` replicates over traces.",
       .min = -1},
      {.path = "trace.generate.models",
       .type = KeyType::kFlag,
       .field = &e.generate.models,
       .doc = "Give each job a model drawn from the model zoo (`gen-trace --models`)."},
      {.path = "trace.generate.device_types",
       .type = KeyType::kText,
       .field = &e.generate.device_types,
       .doc = "`gen-trace --device-types` mix, e.g. `any-gpu:0.8,any:0.2`; empty: none.",
       .default_text = "empty"},
      {.path = "trace.format",
       .type = KeyType::kText,
       .field = &e.trace_format,
       .doc = "Trace format (`dlsim list formats`), or `auto` to guess it."},
      {.path = "trace.reference_device",
       .type = KeyType::kText,
       .field = &e.reference_device,
       .doc = "The device type the trace's `duration_s` were measured on "
              "([traces.md](traces.md#reference-device-and-other-device-types))."},
      {.path = "trace.assign_models",
       .type = KeyType::kFlag,
       .field = &e.assign_models,
       .doc = "Give model-less jobs a zoo model drawn from the seed "
              "([traces.md](traces.md#assigning-models-to-model-less-jobs))."},
      {.path = "trace.skip_bad_jobs",
       .type = KeyType::kFlag,
       .field = &e.skip_bad_jobs,
       .doc = "Skip bad rows instead of failing. Same as `--skip-bad-jobs`."},
  };
  // Each format's own keys, where the format-specific keys of the section go.
  for (const TraceFormat& format : trace_formats()) {
    if (format.keys == nullptr) continue;
    for (ConfigKey& k : format.keys(e.trace_options))
      keys.push_back(std::move(k));
  }
  std::vector<ConfigKey> rest = {
      {.path = "trace.unknown_models",
       .type = KeyType::kText,
       .field = &e.unknown_models,
       .doc = "A job whose model is not in the zoo: an error, or run for its trace duration.",
       .choices = {"error", "duration"}},
      {.path = "trace.throughputs",
       .type = KeyType::kText,
       .field = &e.throughputs_file,
       .doc = "Gavel's or Shockwave's measured throughputs (simulation_throughputs.json, "
              "tacc_throughputs.json): jobs run at their job type's throughput at their scale "
              "factor on each device type ([gavel.md](gavel.md#measured-throughputs)).",
       .default_text = "none"},
      {.path = "trace.batch_sizes",
       .type = KeyType::kText,
       .field = &e.batch_sizes,
       .doc = "Shockwave's gns and accordion jobs: `static` keeps their trace batch size, "
              "`shockwave` changes it as Shockwave's simulator does (needs trace.throughputs; "
              "[gavel.md](gavel.md#batch-sizes-that-change)).",
       .choices = {"static", "shockwave"}},
      {.path = "trace.reshape",
       .type = KeyType::kText,
       .field = &e.reshape,
       .doc = "`fit-nodes`: split a worker that no node holds into node-sized workers "
              "([traces.md](traces.md#workers-larger-than-a-node)).",
       .choices = {"none", "fit-nodes"}},
      {.path = "trace.inflate",
       .type = KeyType::kNumber,
       .field = &e.inflate,
       .doc = "Inflate the workload as the FGD paper's experiments do: shuffle the jobs, draw "
              "copies with replacement (or remove jobs) until they ask for this many times the "
              "cluster's GPUs, and let them arrive 1 s apart with none departing before the "
              "last arrives ([fragmentation.md](fragmentation.md#the-inflated-workload)). Seeded "
              "by `seed`. Implies `report.fragmentation`.",
       .min = 0,
       .min_open = true,
       .unset = -1,
       .default_text = "off (`-1`)"},
      {.path = "trace.time_origin",
       .type = KeyType::kText,
       .field = &sel.time_origin,
       .doc = "Time zero: `first-submit`, seconds in the trace's clock, or `YYYY-MM-DD "
              "HH:MM:SS` ([traces.md](traces.md#selecting-part-of-a-trace))."},
      {.path = "trace.drop_failed",
       .type = KeyType::kFlag,
       .field = &sel.drop_failed,
       .doc = "Drop the jobs the trace marks failed or killed."},
      {.path = "trace.vc",
       .type = KeyType::kText,
       .field = &sel.vc,
       .doc = "Keep this virtual cluster / queue only (empty: all)."},
      {.path = "trace.window",
       .type = KeyType::kText,
       .field = &sel.window,
       .doc = "`START:END`, seconds after the origin (empty: the whole trace)."},
      {.path = "trace.sample",
       .type = KeyType::kInteger,
       .field = &sel.sample,
       .doc = "Keep this many jobs, drawn from the seed without replacement (0: every job).",
       .min = 0},
  };
  keys.insert(keys.end(), std::make_move_iterator(rest.begin()),
              std::make_move_iterator(rest.end()));
  return keys;
}

} // namespace

std::vector<ConfigKey> experiment_keys(Experiment& e) {
  std::vector<ConfigKey> keys{
      {.path = "name",
       .type = KeyType::kText,
       .field = &e.name,
       .doc = "Used in the default output directory `results/<name>-<policy>-<seed>/`.",
       .default_text = "the file's name without `.yaml`"},
      {.path = "cluster",
       .type = KeyType::kNode,
       .doc = "A cluster file, or the cluster written inline ([cluster.md](cluster.md)).",
       .required = true},
  };
  auto append = [&keys](std::vector<ConfigKey> more) {
    keys.insert(keys.end(), std::make_move_iterator(more.begin()),
                std::make_move_iterator(more.end()));
  };
  append(trace_keys(e));
  append({
      {.path = "models",
       .type = KeyType::kText,
       .field = &e.models_file,
       .doc = "The model zoo ([models.md](models.md))."},
      {.path = "policy.name",
       .type = KeyType::kText,
       .field = &e.policy,
       .doc = "`dlsim list policies`. `policy: NAME` is short for `policy: {name: NAME}`."},
      {.path = "policy.placement",
       .type = KeyType::kText,
       .field = &e.placement,
       .doc = "`dlsim list placements` ([runtime.md](runtime.md#placement-strategies))."},
      {.path = "policy.params",
       .type = KeyType::kNode,
       .doc = "The policy's declared parameters: undeclared keys are errors, missing ones take "
              "their declared defaults (`dlsim list policies`).",
       .default_text = "`{}`"},
  });
  append(runtime_keys(e.runtime));
  append({
      {.path = "report.sample_s",
       .type = KeyType::kSeconds,
       .field = &e.sample_s,
       .doc = "Period of `timeseries.csv` ([outputs.md](outputs.md#timeseriescsv)); at least "
              "dlsim's time step of 1 µs.",
       .min = 1e-6},
      {.path = "report.fragmentation",
       .type = KeyType::kFlag,
       .field = &e.fragmentation,
       .doc = "Measure GPU sharing: `allocation.csv` (GPUs allocated and fragmented against "
              "GPUs arrived, per 1% of the cluster's) and `summary.json`'s `gpu_sharing` "
              "([fragmentation.md](fragmentation.md#measures))."},
      {.path = "report.measure_from_s",
       .type = KeyType::kSeconds,
       .field = &e.measure_from_s,
       .doc = "Start of the measurement window: `summary.json`'s `window` has the metrics of the "
              "jobs submitted from here to `report.measure_to_s`, while every job runs "
              "([outputs.md](outputs.md#measurement-window)).",
       .min = 0,
       .unset = -1,
       .default_text = "no window (`-1`); 0 when only `measure_to_s` is set"},
      {.path = "report.measure_to_s",
       .type = KeyType::kSeconds,
       .field = &e.measure_to_s,
       .doc = "End of the measurement window (inclusive); not below `report.measure_from_s`.",
       .min = 0,
       .unset = -1,
       .default_text = "no window (`-1`); the last submission when only `measure_from_s` is set"},
      {.path = "seed",
       .type = KeyType::kInteger,
       .field = &e.seed,
       .doc = "The run's seed. In this version it drives `trace.assign_models` and "
              "`trace.sample`.",
       .min = 0},
      {.path = "until_s",
       .type = KeyType::kSeconds,
       .field = &e.until_s,
       .doc = "Stop at this simulated time. `--until` overrides it.",
       .min = 0,
       .unset = -1,
       .default_text = "run to the end (`-1`)"},
      {.path = "dlsim_version",
       .type = KeyType::kIgnored,
       .doc = "Accepted and ignored, so that a `run.yaml` can be run again."},
  });
  return keys;
}

} // namespace dlsim
