// A run of a scripted policy (ScriptPolicy) on a small cluster given as YAML and a trace given as
// native CSV, with the invariant checker attached: the set-up of the runtime's hand-computed tests
// (runtime_test, elastic_resize_test, network_test).
#pragma once

#include "tests/support/harness.h"
#include "tests/support/invariants.h"

#include <memory>
#include <string>
#include <vector>

namespace dlsim::test {

struct ScriptedRun {
  Cluster cluster;
  Workload workload;
  RuntimeConfig config;
  std::unique_ptr<ScriptPolicy> policy;
  std::unique_ptr<Simulation> sim;
  InvariantChecker checker;

  ScriptedRun(const std::string& cluster_yaml, const std::string& csv,
              std::vector<ScriptPolicy::Step> steps, RuntimeConfig cfg = {})
      : cluster(cluster_from_yaml(cluster_yaml)), workload(workload_from_csv(cluster, csv)),
        config(std::move(cfg)) {
    policy = std::make_unique<ScriptPolicy>(std::move(steps));
    sim = std::make_unique<Simulation>(cluster, workload, config, *policy,
                                       PolicyInfo{"script", false});
    sim->add_observer(&checker);
  }
  RunResult run() {
    RunResult r = sim->run();
    checker.check_final(sim->state());
    return r;
  }
  [[nodiscard]] JobId id(const std::string& name) const { return job_named(workload, name); }
  [[nodiscard]] const JobState& job(const std::string& name) const {
    return sim->state().jobs[id(name)];
  }
  // A job's finish time in seconds: the first job's, or the named one's.
  [[nodiscard]] double end_s(JobId j = 0) const { return to_seconds(sim->state().jobs[j].end); }
  [[nodiscard]] double end_s(const std::string& name) const { return end_s(id(name)); }
};

// Device ids from, from + 1, ..., to - 1.
inline std::vector<DeviceId> device_range(DeviceId from, DeviceId to) {
  std::vector<DeviceId> out;
  for (DeviceId d = from; d < to; ++d)
    out.push_back(d);
  return out;
}

} // namespace dlsim::test
