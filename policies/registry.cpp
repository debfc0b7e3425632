#include "policies/registry.h"

#include "policies/drf.h"
#include "policies/fifo.h"
#include "policies/fifo_backfill.h"
#include "policies/gandiva/gandiva.h"
#include "policies/k8s_default.h"
#include "policies/kube_batch/kube_batch.h"
#include "policies/las.h"
#include "policies/max_throughput.h"
#include "policies/search_sessions.h"
#include "policies/shortest_gpu_time.h"
#include "policies/sjf.h"
#include "policies/srtf.h"
#include "policies/tiresias.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace dlsim {

const std::vector<PolicyEntry>& policy_registry() {
  static const std::vector<PolicyEntry> entries = {
      {"fifo",
       "first in, first out; a job that does not fit blocks the ones behind it that could use "
       "its device types",
       false,
       {{"hetero",
         "heterogeneity-aware: choose the started jobs' device types to maximise summed "
         "normalized throughput (Gavel-style) instead of each job's fastest free type",
         "false"}},
       [](const PolicySetup& s) { return make_fifo(s.placement, s.params.flag("hetero")); }},
      {"sjf",
       "shortest job first (oracle: reads true durations); non-preemptive, strict order",
       true,
       {},
       [](const PolicySetup& s) { return make_sjf(s.placement); }},
      {"srtf",
       "shortest remaining time first (oracle); preempts longer jobs for shorter ones",
       true,
       {},
       [](const PolicySetup& s) { return make_srtf(s.placement); }},
      // An oracle only with `oracle: true` (uses_oracle); with the default it reads only the
      // trace's requested times.
      {"fifo-backfill",
       "FIFO with EASY backfilling: a later job starts early when it does not delay the head's "
       "reservation (estimates: requested times, or true ones with oracle: true)",
       true,
       {{"oracle", "estimate run times from the true durations instead of the trace's requested_s",
         "false"}},
       [](const PolicySetup& s) {
         return make_fifo_backfill(s.placement, s.params.flag("oracle"));
       }},
      {"shortest-gpu-time",
       "shortest GPU time (duration x GPUs) first (oracle); non-preemptive and strict, or SRSF "
       "with preemptive: true",
       true,
       {{"preemptive", "order by remaining GPU time and suspend larger running jobs (SRSF)",
         "false"}},
       [](const PolicySetup& s) {
         return make_shortest_gpu_time(s.placement, s.params.flag("preemptive"));
       }},
      {"tiresias",
       "Tiresias discretized 2D-LAS: queues by attained GPU-seconds, FIFO within a queue, "
       "preemption across queues",
       false,
       {{"thresholds",
         "attained GPU-seconds at which a job moves down one queue; K = entries + 1 queues",
         "[3600]"},
        {"promote_knob",
         "starvation guard: back to the first queue after waiting longer than this "
         "many times its run time since it was last there (0 = off)",
         "0"},
        {"queue_order",
         "order within a queue: entry (FIFO by time of entering it) or running-first (running "
         "jobs ahead of waiting ones after every decision, as the Tiresias simulator)",
         "entry"}},
       [](const PolicySetup& s) { return make_tiresias(s.placement, tiresias_options(s.params)); }},
      {"las",
       "least attained service (GPU-seconds), continuous and preemptive: the un-discretized 2D-LAS",
       false,
       {{"interval_s",
         "seconds between the rounds at which running jobs may be preempted (0 = "
         "at every arrival, finish and completed action)",
         "360"},
        {"hetero",
         "heterogeneity-aware (Gavel-style): service in fastest-type device-seconds, and "
         "types chosen to maximise summed normalized throughput",
         "false"},
        {"blind_types",
         "speed-blind type choice (the type with the most free devices), as Gavel's "
         "heterogeneity-agnostic LAS baseline; ignored with hetero: true",
         "false"}},
       [](const PolicySetup& s) {
         return make_las(s.placement, las_interval(s.params), s.params.flag("hetero"),
                         s.params.flag("blind_types"));
       }},
      {"max-throughput",
       "heterogeneity-aware (Gavel's max_sum_throughput): free devices go to the waiting jobs and "
       "types that maximise summed normalized throughput; non-preemptive",
       false,
       {{"window", "waiting jobs, oldest first, that one decision considers", "256"}},
       [](const PolicySetup& s) {
         return make_max_throughput(s.placement, max_throughput_window(s.params));
       }},
      {"drf",
       "dominant resource fairness over devices, CPUs and memory: the user with the smallest "
       "dominant share starts its oldest job next; non-preemptive",
       false,
       {{"group_by", "whose shares are equalized: user or queue (the trace's virtual cluster)",
         "user"}},
       [](const PolicySetup& s) { return make_drf(s.placement, drf_by_queue(s.params)); }},
      {"k8s-default",
       "Kubernetes' default scheduler: pods placed one at a time (spread by LeastAllocated), no "
       "gang: a partly placed job holds its devices idle and may deadlock",
       false,
       {{"pod_interval_s", "seconds between the creation of consecutive pods of a job", "0.1"},
        {"scoring", "NodeResourcesFit scoring: LeastAllocated (spread) or MostAllocated (pack)",
         "LeastAllocated"}},
       [](const PolicySetup& s) { return make_k8s_default(k8s_default_options(s.params)); }},
      {"kube-batch",
       "kube-batch / Volcano: per decision a session runs the configured actions with tiers of "
       "plugins (gang, priority, drf, proportion queues, binpack, nodeorder, predicates); paste a "
       "kube-batch config into actions and tiers",
       false, kube_batch_params(), [](const PolicySetup& s) { return make_kube_batch(s.params); }},
      {"volcano", "the same policy as kube-batch, with the same parameters and defaults", false,
       kube_batch_params(), [](const PolicySetup& s) { return make_kube_batch(s.params); }},
      {"gandiva",
       "Gandiva: affinity placement by GPU-count class, time-slicing of same-class jobs when "
       "jobs wait, packing kept only when measured better, migration (spread, defragment, "
       "locality), grow-shrink of elastic jobs",
       false,
       {{"slice_s", "time slice of jobs sharing devices, s (Gandiva: 60 s)", "60"},
        {"exact_slices", "emit every slice as suspend/resume instead of the fluid 1/k share",
         "false"},
        {"packing", "try packing pairs of time-sliced jobs; unpack when measured worse", "true"},
        {"pack_util_limit", "pack only pairs whose summed GPU utilization is at most this", "1.0"},
        {"migration", "migrate to spread over-subscribed groups, defragment and improve locality",
         "true"},
        {"grow_shrink", "grow elastic jobs onto idle devices, shrink them when jobs wait", "true"}},
       [](const PolicySetup& s) { return make_gandiva(gandiva_options(s.params)); }},
      {"automl",
       "hyper-parameter search sessions (successive halving, stop at the target) on top of "
       "another policy: the search kills trials, `scheduler` places them",
       false,
       {{"sessions", "the sessions file (docs/gandiva.md): also given to gen-trace --sessions",
         "''"},
        {"scheduler", "the policy that schedules every job", "fifo"},
        {"scheduler_params", "that policy's parameters", "{}"}},
       make_automl_policy},
  };
  return entries;
}

const PolicyEntry& find_policy(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& e : policy_registry()) {
    if (e.name == name) return e;
    names.push_back(e.name);
  }
  throw InputError(
      fmt::format("policy.name: unknown policy '{}' (known: {})", name, fmt::join(names, ", ")));
}

namespace {

bool declares_oracle_param(const PolicyEntry& entry) {
  return std::any_of(entry.params.begin(), entry.params.end(),
                     [](const ParamSpec& p) { return p.key == "oracle"; });
}

} // namespace

bool uses_oracle(const PolicyEntry& entry, const PolicyParams& params) {
  if (!entry.oracle) return false;
  return !declares_oracle_param(entry) || params.flag("oracle");
}

std::string oracle_tag(const PolicyEntry& entry) {
  if (!entry.oracle) return "";
  return declares_oracle_param(entry) ? "[oracle with oracle: true]" : "[oracle]";
}

PolicyParams resolve_params(const PolicyEntry& entry, const YAML::Node& given) {
  YAML::Node out(YAML::NodeType::Map);
  if (given.IsDefined() && !given.IsNull()) {
    if (!given.IsMap()) throw InputError("policy.params: expected a mapping of parameter to value");
    for (const auto& kv : given) {
      auto key = kv.first.as<std::string>();
      bool declared = false;
      for (const auto& p : entry.params)
        declared = declared || p.key == key;
      if (!declared) {
        std::vector<std::string> keys;
        for (const auto& p : entry.params)
          keys.push_back(p.key);
        throw InputError(fmt::format(
            "policy.params.{}: policy '{}' has no such parameter (its parameters: {})", key,
            entry.name, keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", "))));
      }
      out[key] = kv.second;
    }
  }
  for (const auto& p : entry.params) {
    if (!out[p.key].IsDefined() || out[p.key].IsNull()) out[p.key] = YAML::Load(p.default_value);
  }
  return PolicyParams(out, entry.name);
}

double PolicyParams::number(const std::string& key) const {
  try {
    return values_[key].as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(
        fmt::format("policy.params.{}: expected a number for policy '{}'", key, policy_));
  }
}

bool PolicyParams::flag(const std::string& key) const {
  try {
    return values_[key].as<bool>();
  } catch (const YAML::Exception&) {
    throw InputError(
        fmt::format("policy.params.{}: expected true or false for policy '{}'", key, policy_));
  }
}

std::vector<double> PolicyParams::numbers(const std::string& key) const {
  const YAML::Node& n = values_[key];
  std::vector<double> out;
  try {
    if (n.IsScalar()) {
      out.push_back(n.as<double>());
    } else if (n.IsSequence()) {
      for (const auto& v : n)
        out.push_back(v.as<double>());
    } else {
      throw YAML::Exception(YAML::Mark::null_mark(), "not a list");
    }
  } catch (const YAML::Exception&) {
    throw InputError(
        fmt::format("policy.params.{}: expected a list of numbers for policy '{}'", key, policy_));
  }
  return out;
}

std::string PolicyParams::text(const std::string& key) const {
  try {
    return values_[key].as<std::string>();
  } catch (const YAML::Exception&) {
    throw InputError(
        fmt::format("policy.params.{}: expected a string for policy '{}'", key, policy_));
  }
}

} // namespace dlsim
