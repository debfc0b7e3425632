// An experiment: cluster, trace, policy and parameters, read from YAML with flags and --set
// overrides applied, every default filled in. The resolved tree is what run.yaml records.
#pragma once

#include "sim/cluster/cluster.h"
#include "sim/runtime/runtime_config.h"
#include "workloads/trace.h"
#include "workloads/trace_select.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dlsim {

struct ExperimentInputs {
  std::string experiment_file; // empty: the bundled default experiment
  std::vector<std::pair<std::string, std::string>>
      overrides; // dotted key, value (flags first, then --set)
  // How overrides[i] was given, for messages ("--until"); empty or past the end: by --set.
  std::vector<std::string> origins{};
};

struct Experiment {
  std::string name;
  std::string source_file; // the experiment YAML, for messages
  Cluster cluster;
  std::string cluster_file; // "" when inline
  std::string trace_file;
  // trace.generate: a synthetic trace made by the run instead of read (jobs 0 = read trace.file).
  struct Generate {
    std::uint64_t jobs = 0;
    double arrival_rate = -1; // per hour; -1: the preset's, or gen-trace's default (Philly)
    std::string like;         // a gen-trace preset, or ""
    double seed = -1;         // -1: the run's seed
    bool models = false;
    std::string device_types;
  } generate;
  std::string trace_format = "native";
  std::string reference_device = "V100";
  bool assign_models = false;
  bool skip_bad_jobs = false;
  // The formats' own trace.* keys (swf_devices, openb_duration_s, ...), declared by each format
  // (TraceFormat::keys, in each format's reader file) and bound here.
  ReadOptions trace_options;
  std::string unknown_models = "error"; // trace.unknown_models: error or duration
  std::string throughputs_file;         // trace.throughputs: measured throughputs; "" = none
  std::string batch_sizes = "static";   // trace.batch_sizes: static or shockwave
  std::string reshape = "none";         // trace.reshape: none or fit-nodes
  double inflate = -1;                  // trace.inflate: tune x the cluster's GPUs; -1 = off
  TraceSelection selection;             // trace.time_origin, .drop_failed, .vc, .window, .sample
  std::string models_file = "configs/models/zoo.yaml";
  std::string policy = "fifo";
  std::string placement = "consolidate";
  YAML::Node policy_params;
  RuntimeConfig runtime;
  double sample_s = 60;
  bool fragmentation = false; // report.fragmentation: allocation.csv and summary's gpu_sharing
  std::uint64_t seed = 1;
  double until_s = -1; // stop the run at this simulated time; -1 = run to the end
  // The measurement window (report.measure_from_s, report.measure_to_s): summary.json's
  // `window` covers the jobs submitted in it. -1 = not set.
  double measure_from_s = -1;
  double measure_to_s = -1;
  YAML::Node resolved; // the whole resolved tree, for run.yaml
};

// Finds a data file: as given, then relative to `beside` (the experiment's folder), then
// relative to dlsim's source tree. Returns the first that exists, else `path` unchanged.
std::string find_data_file(const std::string& path, const std::string& beside);

Experiment load_experiment(const ExperimentInputs& inputs);

} // namespace dlsim
