#include "sim/cli/experiment.h"

#include "policies/placement.h"
#include "policies/registry.h"
#include "sim/cluster/cluster_yaml.h"
#include "sim/config/yaml_reader.h"
#include "sim/engine/error.h"
#include "sim/engine/time.h"
#include "sim/runtime/sim_state.h"
#include "workloads/cluster_from_trace.h"

#include <fmt/format.h>

#include <filesystem>

#ifndef DLSIM_SOURCE_DIR
#define DLSIM_SOURCE_DIR "."
#endif

namespace dlsim {

namespace fs = std::filesystem;

std::string find_data_file(const std::string& path, const std::string& beside) {
  if (path.empty() || fs::path(path).is_absolute() || fs::exists(path)) return path;
  if (!beside.empty()) {
    fs::path p = fs::path(beside).parent_path() / path;
    if (fs::exists(p)) return p.string();
  }
  fs::path p = fs::path(DLSIM_SOURCE_DIR) / path;
  if (fs::exists(p)) return p.string();
  return path;
}

namespace {

constexpr const char* kDefaultExperiment = "configs/experiments/default.yaml";
constexpr const char* kDefaultZoo = "configs/models/zoo.yaml";

double non_negative(YamlMap& m, const std::string& key, double fallback) {
  double v = m.get<double>(key, fallback);
  if (v < 0)
    yaml_fail(m.where_of(key), m.child(key), fmt::format("must not be negative, got {}", v));
  return v;
}

// A duration or time in seconds: not negative, and within dlsim's time limit (time.h).
double seconds(YamlMap& m, const std::string& key, double fallback) {
  double v = non_negative(m, key, fallback);
  if (v > kMaxSeconds)
    yaml_fail(m.where_of(key), m.child(key),
              fmt::format("{} s is beyond dlsim's time limit of {} s (about 126 years; "
                          "docs/runtime.md, \"Time and its limit\")",
                          v, kMaxSeconds));
  return v;
}

void expand_short_forms(YAML::Node& root) {
  for (auto [key, inner] : {std::pair{"trace", "file"}, std::pair{"policy", "name"}}) {
    YAML::Node node = root[key];
    if (!node.IsScalar()) continue;
    YAML::Node expanded;
    expanded[inner] = node.Scalar();
    root[key] = expanded;
  }
}

} // namespace

Experiment load_experiment(const ExperimentInputs& inputs) {
  Experiment e;
  std::string file = inputs.experiment_file.empty() ? find_data_file(kDefaultExperiment, "")
                                                    : inputs.experiment_file;
  e.source_file = file;
  YAML::Node root = load_yaml_file(file);
  if (!root.IsMap()) throw InputError(file + ": an experiment must be a YAML mapping");

  // `trace: FILE` and `policy: NAME` are short for `trace: {file: FILE}` and `policy: {name:
  // NAME}`: expanded before the overrides, so that --trace and --policy (trace.file,
  // policy.name) and other trace.* / policy.* keys apply to them, and again after, for an
  // override that sets the short form itself.
  expand_short_forms(root);
  // Overrides that replace the cluster go first, so that a later cluster.* --set applies to
  // the new one; then the cluster file is inlined, then the rest.
  for (const auto& [key, value] : inputs.overrides) {
    if (key == "cluster") yaml_set_path(root, key, value);
  }
  if (root["cluster"].IsScalar()) {
    std::string given = root["cluster"].as<std::string>();
    if (auto spec = parse_trace_cluster_spec(given)) {
      // A node list or machine spec of a trace (openb:FILE, pai2020:FILE), made into cluster YAML.
      spec->file = find_data_file(spec->file, file);
      e.cluster_file = spec->format + ":" + spec->file;
      root["cluster"] = trace_cluster_yaml(*spec);
    } else {
      std::string cluster_path = find_data_file(given, file);
      e.cluster_file = cluster_path;
      root["cluster"] = load_yaml_file(cluster_path);
    }
  }
  for (const auto& [key, value] : inputs.overrides) {
    if (key != "cluster") yaml_set_path(root, key, value);
  }
  expand_short_forms(root);

  YamlMap top(root, YamlWhere{file, ""});
  e.name = top.get<std::string>("name", fs::path(file).stem().string());
  YAML::Node cluster_node = top.child("cluster");
  if (!cluster_node.IsDefined() || cluster_node.IsNull()) {
    throw InputError(file + ": cluster: missing (a path to a cluster YAML, or the cluster inline)");
  }
  e.cluster = load_cluster(cluster_node, e.cluster_file.empty() ? file : e.cluster_file,
                           e.cluster_file.empty() ? "cluster" : "");

  YAML::Node trace_node = top.child("trace");
  YamlMap trace(trace_node, top.where_of("trace"));
  e.trace_file = find_data_file(trace.require<std::string>("file"), file);
  e.trace_format = trace.get<std::string>("format", e.trace_format);
  e.reference_device = trace.get<std::string>("reference_device", e.reference_device);
  e.assign_models = trace.get<bool>("assign_models", e.assign_models);
  e.skip_bad_jobs = trace.get<bool>("skip_bad_jobs", e.skip_bad_jobs);
  e.swf_devices = trace.get<std::string>("swf_devices", e.swf_devices);
  if (e.swf_devices != "gpu" && e.swf_devices != "cpu") {
    yaml_fail(trace.where_of("swf_devices"), trace.child("swf_devices"), "must be gpu or cpu");
  }
  e.swf_procs_per_device = trace.get<double>("swf_procs_per_device", e.swf_procs_per_device);
  if (!(e.swf_procs_per_device >= 1)) {
    yaml_fail(trace.where_of("swf_procs_per_device"), trace.child("swf_procs_per_device"),
              "must be at least 1");
  }
  e.openb_duration_s = seconds(trace, "openb_duration_s", e.openb_duration_s);
  e.openb_replay_pending = trace.get<bool>("openb_replay_pending", e.openb_replay_pending);
  e.unknown_models = trace.get<std::string>("unknown_models", e.unknown_models);
  if (e.unknown_models != "error" && e.unknown_models != "duration") {
    yaml_fail(trace.where_of("unknown_models"), trace.child("unknown_models"),
              "must be error or duration");
  }
  // Which part of the trace to replay (workloads/trace_select.h, docs/traces.md).
  TraceSelection& sel = e.selection;
  sel.time_origin = trace.get<std::string>("time_origin", sel.time_origin);
  sel.drop_failed = trace.get<bool>("drop_failed", sel.drop_failed);
  sel.vc = trace.get<std::string>("vc", sel.vc);
  sel.window = trace.get<std::string>("window", sel.window);
  auto sample = trace.get<std::int64_t>("sample", 0);
  if (sample < 0)
    yaml_fail(trace.where_of("sample"), trace.child("sample"),
              "must not be negative (0 = every job)");
  sel.sample = static_cast<std::uint64_t>(sample);
  if (auto problem = selection_problem(sel)) {
    yaml_fail(trace.where_of(problem->first), trace.child(problem->first), problem->second);
  }
  trace.done();

  e.models_file = find_data_file(top.get<std::string>("models", kDefaultZoo), file);

  YAML::Node policy_node = top.child("policy");
  YamlMap policy(policy_node, top.where_of("policy"));
  e.policy = policy.get<std::string>("name", "fifo");
  const PolicyEntry& entry = find_policy(e.policy);
  e.placement = policy.get<std::string>("placement", e.placement);
  parse_placement(e.placement);
  e.policy_params = resolve_params(entry, policy.child("params")).values();
  policy.done();

  YAML::Node costs_node = top.child("costs");
  YamlMap costs(costs_node, top.where_of("costs"));
  Costs& c = e.runtime.costs;
  c.start_s = seconds(costs, "start_s", c.start_s);
  c.suspend_s = seconds(costs, "suspend_s", c.suspend_s);
  c.resume_s = seconds(costs, "resume_s", c.resume_s);
  c.migrate_s = seconds(costs, "migrate_s", c.migrate_s);
  c.resize_s = seconds(costs, "resize_s", c.resize_s);
  c.switch_s = seconds(costs, "switch_s", c.switch_s);
  costs.done();

  YAML::Node runtime_node = top.child("runtime");
  YamlMap runtime(runtime_node, top.where_of("runtime"));
  e.runtime.max_jobs_per_device =
      runtime.get<unsigned>("max_jobs_per_device", e.runtime.max_jobs_per_device);
  if (e.runtime.max_jobs_per_device < 1 || e.runtime.max_jobs_per_device > 8) {
    yaml_fail(runtime.where_of("max_jobs_per_device"), runtime_node, "must be 1 to 8");
  }
  e.runtime.max_timeslice_jobs =
      runtime.get<unsigned>("max_timeslice_jobs", e.runtime.max_timeslice_jobs);
  if (e.runtime.max_timeslice_jobs < 1 || e.runtime.max_timeslice_jobs > DeviceSlot::kMaxShare) {
    yaml_fail(runtime.where_of("max_timeslice_jobs"), runtime.child("max_timeslice_jobs"),
              fmt::format("must be 1 to {}", DeviceSlot::kMaxShare));
  }
  e.runtime.default_gpu_util = runtime.get<double>("default_gpu_util", e.runtime.default_gpu_util);
  if (e.runtime.default_gpu_util <= 0 || e.runtime.default_gpu_util > 1) {
    yaml_fail(runtime.where_of("default_gpu_util"), runtime_node, "must be in (0, 1]");
  }
  YAML::Node interference_node = runtime.child("interference");
  YamlMap interference(interference_node, runtime.where_of("interference"));
  e.runtime.interference.slope = non_negative(interference, "slope", e.runtime.interference.slope);
  e.runtime.interference.onset = non_negative(interference, "onset", e.runtime.interference.onset);
  interference.done();
  runtime.done();

  YAML::Node network_node = top.child("network");
  YamlMap network(network_node, top.where_of("network"));
  e.runtime.network.contention = network.get<bool>("contention", e.runtime.network.contention);
  network.done();

  YAML::Node report_node = top.child("report");
  YamlMap report(report_node, top.where_of("report"));
  e.sample_s = report.get<double>("sample_s", e.sample_s);
  if (!(e.sample_s >= 1e-6))
    yaml_fail(report.where_of("sample_s"), report_node, "must be positive");
  if (e.sample_s > kMaxSeconds) (void)seconds(report, "sample_s", e.sample_s);
  report.done();

  e.seed = top.get<std::uint64_t>("seed", e.seed);
  e.until_s = top.get<double>("until_s", e.until_s);
  if (e.until_s < 0 && e.until_s != -1)
    yaml_fail(top.where_of("until_s"), root, "must not be negative");
  if (e.until_s > kMaxSeconds) (void)seconds(top, "until_s", e.until_s);
  // Written into run.yaml for the record; any version may read it.
  (void)top.get<std::string>("dlsim_version", "");
  top.done();

  // The resolved tree: what was given, with every default written out.
  YAML::Node r;
  r["name"] = e.name;
  r["cluster"] = cluster_to_yaml(e.cluster);
  r["trace"]["file"] = e.trace_file;
  r["trace"]["format"] = e.trace_format;
  r["trace"]["reference_device"] = e.reference_device;
  r["trace"]["assign_models"] = e.assign_models;
  r["trace"]["skip_bad_jobs"] = e.skip_bad_jobs;
  r["trace"]["swf_devices"] = e.swf_devices;
  r["trace"]["swf_procs_per_device"] = e.swf_procs_per_device;
  r["trace"]["openb_duration_s"] = e.openb_duration_s;
  r["trace"]["openb_replay_pending"] = e.openb_replay_pending;
  r["trace"]["unknown_models"] = e.unknown_models;
  r["trace"]["time_origin"] = sel.time_origin;
  r["trace"]["drop_failed"] = sel.drop_failed;
  r["trace"]["vc"] = sel.vc;
  r["trace"]["window"] = sel.window;
  r["trace"]["sample"] = sel.sample;
  r["models"] = e.models_file;
  r["policy"]["name"] = e.policy;
  r["policy"]["placement"] = e.placement;
  r["policy"]["params"] = e.policy_params;
  r["costs"]["start_s"] = c.start_s;
  r["costs"]["suspend_s"] = c.suspend_s;
  r["costs"]["resume_s"] = c.resume_s;
  r["costs"]["migrate_s"] = c.migrate_s;
  r["costs"]["resize_s"] = c.resize_s;
  r["costs"]["switch_s"] = c.switch_s;
  r["runtime"]["max_jobs_per_device"] = e.runtime.max_jobs_per_device;
  r["runtime"]["max_timeslice_jobs"] = e.runtime.max_timeslice_jobs;
  r["runtime"]["default_gpu_util"] = e.runtime.default_gpu_util;
  r["runtime"]["interference"]["slope"] = e.runtime.interference.slope;
  r["runtime"]["interference"]["onset"] = e.runtime.interference.onset;
  r["network"]["contention"] = e.runtime.network.contention;
  r["report"]["sample_s"] = e.sample_s;
  r["seed"] = e.seed;
  if (e.until_s >= 0) r["until_s"] = e.until_s;
  e.resolved = r;
  return e;
}

} // namespace dlsim
