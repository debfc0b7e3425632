// Test helpers: tiny clusters and traces from strings, a scripted policy, scratch directories.
#pragma once

#include "policies/registry.h"
#include "sim/cluster/cluster.h"
#include "sim/runtime/simulation.h"
#include "workloads/model_zoo.h"
#include "workloads/trace.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dlsim::test {

Cluster cluster_from_yaml(const std::string& yaml);

// A native-format trace from CSV text (written to a scratch file, read by the real reader).
Trace trace_from_csv(const std::string& csv, bool skip_bad_jobs = false);

const ModelZoo& zoo(); // configs/models/zoo.yaml, read once

Workload workload_from_csv(const Cluster& cluster, const std::string& csv);

// A fresh directory under the system temp dir, removed when the object dies.
class ScratchDir {
public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& content) const;

private:
  std::filesystem::path path_;
};

std::string read_file(const std::string& path);

// The dlsim binary, run from the source tree (so bundled relative paths resolve), with its exit
// code and what it printed; the output goes through files in `dir`.
struct Outcome {
  int code;
  std::string out;
  std::string err;
};
Outcome run_dlsim(const std::string& args, const ScratchDir& dir);

// A policy that runs given steps at given times: for testing actions and costs.
class ScriptPolicy final : public Policy {
public:
  struct Step {
    SimTime at;
    std::function<void(Control&)> act;
  };
  explicit ScriptPolicy(std::vector<Step> steps) : steps_(std::move(steps)) {}
  void schedule(Control& control) override;

private:
  std::vector<Step> steps_;
  std::size_t next_ = 0;
};

JobId job_named(const Workload& w, const std::string& name);

// The message of the InputError that f throws, or "(no error)".
std::string message_of(const std::function<void()>& f);

// Runs a named registry policy on the cluster and workload, with the invariant checker
// attached; returns the final state.
struct RunOutput {
  SimState state; // copy of the final state
  RunResult result;
  double gpu_util_alloc = 0;
};
RunOutput run_policy(const std::string& policy, const Cluster& cluster, const Workload& workload,
                     const RuntimeConfig& config = {},
                     const std::string& placement = "consolidate");
// The same for an entry that need not be in the registry, with its parameters (policy.params).
RunOutput run_policy(const PolicyEntry& entry, const Cluster& cluster, const Workload& workload,
                     const YAML::Node& params, const RuntimeConfig& config = {},
                     const std::string& placement = "consolidate");

} // namespace dlsim::test
