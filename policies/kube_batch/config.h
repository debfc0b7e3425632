// A kube-batch / Volcano scheduler configuration, as the experiment gives it in policy.params:
// `actions` (a comma-separated string run in order), `tiers` (lists of plugins with their enable
// flags and arguments), exactly as in kube-batch's pkg/scheduler/conf/scheduler_conf.go, plus
// the `queues` that a cluster would hold as Queue objects (name, weight, capability).
#pragma once

#include "policies/kube_batch/resources.h"
#include "policies/registry.h"

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace dlsim::kb {

// One `- name: ...` entry of a tier. Every enable flag defaults to true, as kube-batch's
// ApplyPluginConfDefaults sets them (pkg/scheduler/plugins/defaults.go).
struct PluginOptions {
  std::string name;
  bool job_order = true;     // enableJobOrder
  bool job_ready = true;     // enableJobReady
  bool job_pipelined = true; // enableJobPipelined
  bool task_order = true;    // enableTaskOrder
  bool preemptable = true;   // enablePreemptable
  bool reclaimable = true;   // enableReclaimable
  bool preemptive = true;    // enablePreemptive (Volcano)
  bool queue_order = true;   // enableQueueOrder
  bool predicate = true;     // enablePredicate
  bool node_order = true;    // enableNodeOrder
  bool job_enqueued = true;  // enableJobEnqueued (Volcano)
  bool job_starving = true;  // enableJobStarving (Volcano)
  bool overused = true;      // enabledOverused (Volcano)
  bool allocatable = true;   // enabledAllocatable (Volcano)
  YAML::Node arguments;      // `arguments:` map, or null
  std::string where;         // "policy.params.tiers.0.plugins.1", for errors
};

struct QueueSpec {
  std::string name;
  double weight = 1;                            // Volcano Queue spec.weight
  Resources capability = Resources::infinite(); // spec.capability; absent dimensions unlimited
  bool reclaimable = true;                      // spec.reclaimable
};

struct Config {
  std::vector<std::string> actions; // in the order they run
  std::vector<std::vector<PluginOptions>> tiers;
  std::vector<QueueSpec> queues; // empty: every queue of the trace, weight 1
  // An elastic job's gang (minMember): its requested workers by default, so that it runs at the
  // size it asked for; with this, its min_workers, and it may start (and stay) at that size.
  bool elastic_at_min = false;
};

const std::vector<std::string>& action_names();
const std::vector<std::string>& plugin_names();

// Reads and checks policy.params; InputError naming the key path on anything unknown or wrong.
Config parse_config(const PolicyParams& params);

} // namespace dlsim::kb
