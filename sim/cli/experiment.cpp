#include "sim/cli/experiment.h"

#include "sim/cli/experiment_keys.h"

#include "policies/placement.h"
#include "policies/registry.h"
#include "sim/cluster/cluster_yaml.h"
#include "sim/config/path_probe.h"
#include "sim/config/yaml_reader.h"
#include "sim/engine/error.h"
#include "workloads/cluster_from_trace.h"
#include "workloads/gen_trace_presets.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#ifndef DLSIM_SOURCE_DIR
#define DLSIM_SOURCE_DIR "."
#endif

namespace dlsim {

namespace fs = std::filesystem;

std::string find_data_file(const std::string& path, const std::string& beside) {
  if (path.empty() || fs::path(path).is_absolute() || path_exists(path)) return path;
  if (!beside.empty()) {
    fs::path p = fs::path(beside).parent_path() / path;
    if (path_exists(p)) return p.string();
  }
  // An installed dlsim (cmake --install) finds its data beside it: <prefix>/bin/dlsim reads
  // <prefix>/share/dlsim/configs/... Then the source tree it was built from.
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path().parent_path() / "share" / "dlsim" / path;
    if (fs::exists(installed, ec)) return installed.string();
  }
  fs::path p = fs::path(DLSIM_SOURCE_DIR) / path;
  if (path_exists(p)) return p.string();
  return path;
}

namespace {

// A trace is opened more than once: to guess its format, for its header and rows, and at the end
// for provenance.json's checksum. A pipe (`--trace /dev/stdin`, a named pipe) gives its bytes to
// the first reader only, so the later ones would read a truncated or empty trace; say so before
// anything is read rather than fail later with a message about the file's contents.
void reject_unrereadable_trace(const std::string& trace) {
  if (trace.empty()) return;
  std::error_code ec;
  const fs::file_status status = fs::status(trace, ec);
  if (ec || !fs::exists(status)) return; // the reader names a missing or unreadable file
  if (fs::is_regular_file(status) || fs::is_directory(status)) return;
  const char* kind = fs::is_fifo(status)             ? "a pipe"
                     : fs::is_character_file(status) ? "a character device"
                     : fs::is_socket(status)         ? "a socket"
                                                     : "not a regular file";
  throw InputError(fmt::format(
      "{}: the trace is {}: dlsim reads a trace more than once (to guess its format, for its rows, "
      "and for the checksum in provenance.json), which a pipe or device cannot give; write it to a "
      "file first (gzip-compressed files are read as they are)",
      trace, kind));
}

// runtime.interference.by_type: {TYPE: {slope, onset}} over the cluster's device types, into
// Calls f(type, name, where, value) for each entry of the mapping at `path` (TYPE: value), the type
// looked up in the cluster's catalog; nothing when the key is absent. Errors name the file and
// the key: not a mapping (`what` says of what), or a name that is not a device type.
template <class F>
void for_each_type_entry(const YAML::Node& root, const std::string& file, const std::string& path,
                         const Experiment& e, const char* what, F&& f) {
  YAML::Node node = node_at(root, path);
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsMap()) yaml_fail(YamlWhere{file, path}, node, fmt::format("must be {}", what));
  for (const auto& entry : node) {
    std::string name = entry.first.as<std::string>();
    YamlWhere where{file, fmt::format("{}.{}", path, name)};
    auto type = find_device_type(e.cluster.types, name);
    if (!type) {
      yaml_fail(where, entry.second,
                fmt::format("'{}' is not a device type of the cluster's catalog", name));
    }
    f(*type, name, where, entry.second);
  }
}

// RuntimeConfig::interference_by_type (by DeviceTypeId; unnamed types keep the default curve).
void read_interference_by_type(const YAML::Node& root, const std::string& file, Experiment& e) {
  const std::string path = "runtime.interference.by_type";
  YAML::Node node = node_at(root, path);
  if (!node.IsDefined() || node.IsNull()) return;
  std::vector<Interference> curves(e.cluster.types.size(), e.runtime.interference);
  for_each_type_entry(
      root, file, path, e, "a mapping of device types",
      [&](DeviceTypeId type, const std::string& /*name*/, const YamlWhere& where,
          const YAML::Node& entry) {
        if (!entry.IsMap()) yaml_fail(where, entry, "must be {slope: S, onset: O}");
        YamlMap curve(entry, where);
        Interference& c = curves[type];
        c.slope = curve.get<double>("slope", c.slope);
        c.onset = curve.get<double>("onset", c.onset);
        curve.done();
        for (auto [key, value] : {std::pair{"slope", c.slope}, std::pair{"onset", c.onset}}) {
          if (!(value >= 0) || !std::isfinite(value)) {
            yaml_fail(curve.where_of(key), curve.node()[key], "must be a number >= 0");
          }
        }
      });
  e.runtime.interference_by_type = std::move(curves);
}

// failures.device.by_type: {TYPE: {mtbf_h, distribution, shape, repair_h, repair}} over the
// cluster's GPU types, into FailureConfig::device_by_type (by DeviceTypeId; the keys and the types
// not given keep failures.device's).
void read_failures_by_type(const YAML::Node& root, const std::string& file, Experiment& e) {
  const std::string path = "failures.device.by_type";
  YAML::Node node = node_at(root, path);
  if (!node.IsDefined() || node.IsNull()) return;
  FailureConfig& f = e.runtime.failures;
  std::vector<FailureProcess> by_type(e.cluster.types.size(), f.device);
  for_each_type_entry(
      root, file, path, e, "a mapping of GPU types",
      [&](DeviceTypeId type, const std::string& name, const YamlWhere& where,
          const YAML::Node& entry) {
        if (e.cluster.types[type].kind != DeviceKind::kGpu) {
          yaml_fail(
              where, entry,
              fmt::format("'{}' is not a GPU type (other devices fail with their node)", name));
        }
        if (!entry.IsMap()) yaml_fail(where, entry, "must be {mtbf_h: H, ...}");
        YamlMap m(entry, where);
        FailureProcess& p = by_type[type];
        p.mtbf_h = m.get<double>("mtbf_h", p.mtbf_h);
        p.distribution = m.get<std::string>("distribution", p.distribution);
        p.shape = m.get<double>("shape", p.shape);
        p.repair_h = m.get<double>("repair_h", p.repair_h);
        p.repair = m.get<std::string>("repair", p.repair);
        m.done();
        auto fail = [&](const char* key, const std::string& what) {
          yaml_fail(m.where_of(key), m.node()[key], what);
        };
        if (!(p.mtbf_h > 0) || !std::isfinite(p.mtbf_h))
          fail("mtbf_h", fmt::format("must be positive, got {}", p.mtbf_h));
        if (!(p.shape > 0) || !std::isfinite(p.shape))
          fail("shape", fmt::format("must be positive, got {}", p.shape));
        if (!(p.repair_h >= 0) || !std::isfinite(p.repair_h))
          fail("repair_h", fmt::format("must be >= 0, got {}", p.repair_h));
        if (p.distribution != "exponential" && p.distribution != "weibull")
          fail("distribution",
               "must be one of: exponential, weibull, got '" + p.distribution + "'");
        if (p.repair != "exponential" && p.repair != "fixed")
          fail("repair", "must be one of: exponential, fixed, got '" + p.repair + "'");
      });
  f.device_by_type = std::move(by_type);
}

// Copies the keys of `from` that `to` lacks into it, mapping by mapping: the experiment's
// failures keys win over the cluster file's.
void merge_missing(YAML::Node to, const YAML::Node& from) {
  for (const auto& entry : from) {
    const std::string key = entry.first.as<std::string>();
    YAML::Node have = to[key];
    if (!have.IsDefined() || have.IsNull()) {
      to[key] = YAML::Clone(entry.second);
    } else if (have.IsMap() && entry.second.IsMap()) {
      merge_missing(have, entry.second);
    }
  }
}

// A cluster file's `failures:` section (docs/failures.md#in-the-cluster-file): the failure model
// of that cluster, so that its runs have failures unless the experiment says otherwise. Its keys
// are the experiment's `failures` keys; the experiment's (and --set's) win key by key. Returns
// true when failures.device.by_type comes from the cluster file (its errors name that file).
bool adopt_cluster_failures(YAML::Node& root, const std::string& cluster_file) {
  YAML::Node cluster = root["cluster"];
  if (!cluster.IsMap()) return false;
  YAML::Node from = cluster["failures"];
  if (!from.IsDefined()) return false;
  if (!from.IsMap()) {
    yaml_fail(YamlWhere{cluster_file, "failures"}, from,
              "must be a mapping of the experiment's failures keys (docs/failures.md)");
  }
  // Checked on its own first, so that a bad key is named in the cluster file.
  {
    Experiment scratch;
    YAML::Node alone;
    alone["failures"] = from;
    std::vector<ConfigKey> keys = experiment_keys(scratch);
    read_config_keys(alone, cluster_file, keys);
  }
  if (!root["failures"].IsDefined() || root["failures"].IsNull())
    root["failures"] = YAML::Node(YAML::NodeType::Map);
  if (!root["failures"].IsMap()) return false; // the experiment's own error, from its reader
  const YAML::Node own = node_at(root, "failures.device.by_type");
  const bool by_type_here =
      (!own.IsDefined() || own.IsNull()) && from["device"].IsMap() && from["device"]["by_type"];
  merge_missing(root["failures"], from);
  cluster.remove("failures");
  return by_type_here;
}

constexpr const char* kDefaultExperiment = "configs/experiments/default.yaml";

// `policy: {external: CMD}` and `policy.name: external:CMD` (what --policy external:CMD sets)
// are short for `policy: {name: external, params: {command: CMD}}` (docs/protocol.md).
void expand_external_policy(YAML::Node& root) {
  YAML::Node policy = root["policy"];
  if (!policy.IsMap()) return;
  std::string command;
  bool given = false;
  if (YAML::Node ext = policy["external"]; ext.IsDefined()) {
    if (!ext.IsScalar() || ext.Scalar().empty()) {
      throw InputError("policy.external: expected the scheduler's command line, e.g. "
                       "\"python3 my_sched.py\"");
    }
    if (YAML::Node name = policy["name"];
        name.IsDefined() && name.IsScalar() && name.Scalar() != "external") {
      throw InputError(fmt::format(
          "policy: give either policy.external or policy.name ('{}'), not both", name.Scalar()));
    }
    command = ext.Scalar();
    policy.remove("external");
    given = true;
  } else if (YAML::Node name = policy["name"]; name.IsMap() && name["external"].IsDefined()) {
    // --policy "external: CMD", with a space, reads as the mapping {external: CMD}.
    YAML::Node ext = name["external"];
    if (name.size() != 1 || !ext.IsScalar() || ext.Scalar().empty()) {
      throw InputError("policy.name: expected external:CMD, the scheduler's command line after "
                       "the colon");
    }
    command = ext.Scalar();
    given = true;
  } else if (name.IsScalar()) {
    constexpr std::string_view kPrefix = "external:";
    const std::string& n = name.Scalar();
    if (n.size() > kPrefix.size() && n.compare(0, kPrefix.size(), kPrefix) == 0) {
      command = n.substr(kPrefix.size());
      given = true;
    }
  }
  if (!given) return;
  policy["name"] = "external";
  if (!policy["params"].IsMap()) policy["params"] = YAML::Node(YAML::NodeType::Map);
  policy["params"]["command"] = command;
}

void expand_short_forms(YAML::Node& root) {
  for (auto [key, inner] : {std::pair{"trace", "file"}, std::pair{"policy", "name"}}) {
    YAML::Node node = root[key];
    if (!node.IsScalar()) continue;
    YAML::Node expanded;
    expanded[inner] = node.Scalar();
    root[key] = expanded;
  }
  expand_external_policy(root);
}

// `cluster: FILE` inlined: a cluster YAML, or a node list or machine spec of a trace
// (openb:FILE, pai2020:FILE) made into cluster YAML; e.cluster_file names it.
void inline_cluster_file(YAML::Node& root, const std::string& file, Experiment& e) {
  if (!root["cluster"].IsScalar()) return;
  std::string given = root["cluster"].as<std::string>();
  if (auto spec = parse_trace_cluster_spec(given)) {
    // A node list or machine spec of a trace (openb:FILE, pai2020:FILE), made into cluster YAML.
    spec->file = find_data_file(spec->file, file);
    e.cluster_file = spec->format + ":" + spec->file;
    root["cluster"] = trace_cluster_yaml(*spec);
  } else {
    std::string cluster_path = find_data_file(given, file);
    e.cluster_file = cluster_path;
    // A file found nowhere is the experiment's fault: name its key, not only the path.
    if (std::error_code ec; !std::filesystem::exists(cluster_path, ec)) {
      throw InputError(fmt::format("{}: cluster: no file {} (as given, beside the "
                                   "experiment, or in dlsim's data directory)",
                                   file, quote_input(given)));
    }
    YAML::Node cluster = load_yaml_file(cluster_path);
    // An empty file (/dev/null) is the cluster file's fault, not the experiment's.
    if (!cluster.IsMap()) {
      throw InputError(fmt::format("{}: {}: a cluster must be a YAML mapping (with nodes:)",
                                   cluster_path,
                                   cluster.IsNull() ? "empty file" : "not a mapping"));
    }
    root["cluster"] = cluster;
  }
}

// The trace comes from a file or from the generator, not both and not neither.
void check_trace_source(const YAML::Node& root, const std::string& file, const Experiment& e) {
  if (e.generate.jobs > 0) {
    // A generated trace: no file, the native format, the generator's seed resolved.
    if (!e.trace_file.empty()) {
      yaml_fail(YamlWhere{file, "trace.generate"}, node_at(root, "trace.generate"),
                "give either trace.file or trace.generate, not both");
    }
    if (e.trace_format != "native") {
      yaml_fail(YamlWhere{file, "trace.format"}, node_at(root, "trace.format"),
                "a generated trace is in the native format, got " + e.trace_format);
    }
    if (e.generate.seed != std::floor(e.generate.seed)) {
      yaml_fail(YamlWhere{file, "trace.generate.seed"}, node_at(root, "trace.generate.seed"),
                fmt::format("must be a whole number, got {}", e.generate.seed));
    }
    if (!e.generate.like.empty()) gen_trace_preset(e.generate.like); // names the presets if not
  } else if (e.trace_file.empty()) {
    YAML::Node generate = node_at(root, "trace.generate");
    if (generate.IsDefined() && !generate.IsNull()) {
      yaml_fail(YamlWhere{file, "trace.generate"}, generate,
                "missing required key 'jobs' (how many jobs to generate)");
    }
    throw InputError(file + ": trace: missing (trace.file, a trace file; or trace.generate)");
  }
}

// The resolved tree: what was given, with every default written out, in the table's order.
YAML::Node resolved_tree(const std::vector<ConfigKey>& keys, const YAML::Node& root,
                         const Experiment& e) {
  YAML::Node r;
  write_config_keys(keys, r);
  // trace.generate is recorded only when the trace is generated, so that other run.yaml keep
  // their text; a file-less trace writes no trace.file.
  if (e.generate.jobs == 0) {
    r["trace"].remove("generate");
  } else {
    r["trace"].remove("file");
  }
  r["cluster"] = cluster_to_yaml(e.cluster);
  r["policy"]["params"] = e.policy_params;
  if (YAML::Node by_type = node_at(root, "runtime.interference.by_type"); by_type.IsMap()) {
    r["runtime"]["interference"]["by_type"] = by_type;
  } else {
    r["runtime"]["interference"]["by_type"] = YAML::Node(YAML::NodeType::Map);
  }
  if (YAML::Node by_type = node_at(root, "failures.device.by_type"); by_type.IsMap()) {
    r["failures"]["device"]["by_type"] = by_type;
  } else {
    r["failures"]["device"].remove("by_type"); // written only when given: run.yaml keeps its text
  }
  return r;
}

} // namespace

Experiment load_experiment(const ExperimentInputs& inputs) {
  Experiment e;
  // -e follows the same path rule as every file an experiment names (find_data_file).
  std::string file = find_data_file(inputs.experiment_file.empty() ? std::string(kDefaultExperiment)
                                                                   : inputs.experiment_file,
                                    "");
  e.source_file = file;
  std::vector<ConfigKey> keys = experiment_keys(e);
  // A misspelt key of a flag, --set or a sweep is named with the nearest declared ones.
  for (const auto& override : inputs.overrides)
    check_key_path(keys, override.first);
  YAML::Node root = load_yaml_file(file);
  if (!root.IsMap()) throw InputError(file + ": an experiment must be a YAML mapping");

  // `trace: FILE` and `policy: NAME` are short for `trace: {file: FILE}` and `policy: {name:
  // NAME}`: expanded before the overrides, so that --trace and --policy (trace.file,
  // policy.name) and other trace.* / policy.* keys apply to them, and again after, for an
  // override that sets the short form itself.
  expand_short_forms(root);
  // Overrides that replace the cluster go first, so that a later cluster.* --set applies to
  // the new one; then the cluster file is inlined, then the rest.
  auto set_override = [&](std::size_t i) {
    const auto& [key, value] = inputs.overrides[i];
    yaml_set_path(root, key, value, i < inputs.origins.size() ? inputs.origins[i] : "");
  };
  for (std::size_t i = 0; i < inputs.overrides.size(); ++i) {
    if (inputs.overrides[i].first == "cluster") set_override(i);
  }
  inline_cluster_file(root, file, e);
  for (std::size_t i = 0; i < inputs.overrides.size(); ++i) {
    if (inputs.overrides[i].first != "cluster") set_override(i);
  }
  expand_short_forms(root);
  const bool by_type_in_cluster =
      adopt_cluster_failures(root, e.cluster_file.empty() ? file : e.cluster_file);

  // Every key but the cluster and the policy's parameters is read by the declared table
  // (experiment_keys.cpp): type, range and unknown keys checked there.
  e.name = fs::path(file).stem().string();
  read_config_keys(root, file, keys);
  YAML::Node cluster_node = node_at(root, "cluster");
  if (!cluster_node.IsDefined() || cluster_node.IsNull()) {
    throw InputError(file + ": cluster: missing (a path to a cluster YAML, or the cluster inline)");
  }
  e.cluster = load_cluster(cluster_node, e.cluster_file.empty() ? file : e.cluster_file,
                           e.cluster_file.empty() ? "cluster" : "");
  check_trace_source(root, file, e);
  e.trace_file = find_data_file(e.trace_file, file);
  reject_unrereadable_trace(e.trace_file);
  // Which part of the trace to replay (workloads/trace_select.h, docs/traces.md).
  if (auto problem = selection_problem(e.selection)) {
    std::string path = "trace." + problem->first;
    yaml_fail(YamlWhere{file, path}, node_at(root, path), problem->second);
  }
  if (e.measure_from_s >= 0 && e.measure_to_s >= 0 && e.measure_to_s < e.measure_from_s) {
    yaml_fail(YamlWhere{file, "report.measure_to_s"}, node_at(root, "report.measure_to_s"),
              fmt::format("must not be below report.measure_from_s ({} s), got {} s",
                          e.measure_from_s, e.measure_to_s));
  }
  e.models_file = find_data_file(e.models_file, file);
  if (!e.throughputs_file.empty()) e.throughputs_file = find_data_file(e.throughputs_file, file);
  if (e.batch_sizes == "shockwave" && e.throughputs_file.empty()) {
    yaml_fail(YamlWhere{file, "trace.batch_sizes"}, node_at(root, "trace.batch_sizes"),
              "shockwave needs trace.throughputs (the throughputs of each batch size)");
  }
  read_interference_by_type(root, file, e);
  read_failures_by_type(root, by_type_in_cluster && !e.cluster_file.empty() ? e.cluster_file : file,
                        e);
  if (!e.runtime.interference_pairs_file.empty() && e.runtime.interference_pairs_file != "none") {
    e.runtime.interference_pairs_file = find_data_file(e.runtime.interference_pairs_file, file);
  }
  if (!e.runtime.failures.log_file.empty())
    e.runtime.failures.log_file = find_data_file(e.runtime.failures.log_file, file);
  const PolicyEntry& entry = find_policy(e.policy);
  parse_placement(e.placement);
  e.policy_params = resolve_params(entry, node_at(root, "policy.params")).values();

  e.resolved = resolved_tree(keys, root, e);
  return e;
}

} // namespace dlsim
