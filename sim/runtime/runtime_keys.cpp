#include "sim/runtime/runtime_keys.h"

#include "sim/runtime/sim_state.h"

#include <string>
#include <utility>

namespace dlsim {

std::vector<ConfigKey> runtime_keys(RuntimeConfig& c) {
  // The sharing limits are bounded by the slots a device has (DeviceSlot::kMaxShare).
  constexpr double kMaxShare = DeviceSlot::kMaxShare;
  std::vector<ConfigKey> keys = {
      {.path = "costs.start_s",
       .type = KeyType::kSeconds,
       .field = &c.costs.start_s,
       .doc = "First start of a job ([runtime.md](runtime.md#costs)); 0 so that a FIFO replay "
              "reproduces trace durations.",
       .min = 0},
      {.path = "costs.suspend_s",
       .type = KeyType::kSeconds,
       .field = &c.costs.suspend_s,
       .doc = "Checkpoint to storage on preemption.",
       .min = 0},
      {.path = "costs.resume_s",
       .type = KeyType::kSeconds,
       .field = &c.costs.resume_s,
       .doc = "Restore from the checkpoint on resume.",
       .min = 0},
      {.path = "costs.migrate_s",
       .type = KeyType::kSeconds,
       .field = &c.costs.migrate_s,
       .doc = "Migration: suspend, move and resume.",
       .min = 0},
      {.path = "costs.resize_s",
       .type = KeyType::kSeconds,
       .field = &c.costs.resize_s,
       .doc = "Elastic resize: re-partition the data-parallel workers.",
       .min = 0},
      {.path = "costs.switch_s",
       .type = KeyType::kSeconds,
       .field = &c.costs.switch_s,
       .doc = "One switch between time-sliced jobs, paid at the start of every slice "
              "([runtime.md](runtime.md#time-slicing); Gandiva reports 0.1–1 s).",
       .min = 0},
      {.path = "costs.set_share_s",
       .type = KeyType::kSeconds,
       .field = &c.costs.set_share_s,
       .doc = "Changing a running job's share with `set_share`: the job pauses this long "
              "([runtime.md](runtime.md#fractional-shares)).",
       .min = 0},
      {.path = "costs.restart_s",
       .type = KeyType::kSeconds,
       .field = &c.costs.restart_s,
       .doc = "The fixed part of a checkpoint-restart: of every resize with `runtime.resize: "
              "checkpoint` ([scaling.md](scaling.md#resize-mechanisms)), and of every change of "
              "a job's CPU cores, whatever `runtime.resize` says "
              "([runtime.md](runtime.md#cpu-resize)).",
       .min = 0},
      {.path = "costs.live_resize_s",
       .type = KeyType::kSeconds,
       .field = &c.costs.live_resize_s,
       .doc = "With `runtime.resize: live`: the pause while workers join or leave "
              "(Elan, ICDCS'20: about 1 s).",
       .min = 0},
      {.path = "runtime.max_jobs_per_device",
       .type = KeyType::kInteger,
       .field = &c.max_jobs_per_device,
       .doc = "Jobs that `pack` may put on one device "
              "([runtime.md](runtime.md#co-location-and-interference)).",
       .min = 1,
       .max = kMaxShare},
      {.path = "runtime.max_timeslice_jobs",
       .type = KeyType::kInteger,
       .field = &c.max_timeslice_jobs,
       .doc = "Jobs that may take turns on one device with `timeslice` "
              "([runtime.md](runtime.md#time-slicing)).",
       .min = 1,
       .max = kMaxShare},
      {.path = "runtime.default_gpu_util",
       .type = KeyType::kNumber,
       .field = &c.default_gpu_util,
       .doc = "GPU utilization of jobs with no model and no trace value (Jeon et al., ATC'19).",
       .min = 0,
       .max = 1,
       .min_open = true},
      {.path = "runtime.profile_s",
       .type = KeyType::kSeconds,
       .field = &c.profile_s,
       .doc = "How long the profiler watches a job (alone, or in its own time slices) before a "
              "policy may read its measured GPU utilization "
              "([runtime.md](runtime.md#what-policies-may-observe); HotCloud'20's 1-min online "
              "profiling).",
       .min = 0},
      {.path = "runtime.observe.noise",
       .type = KeyType::kNumber,
       .field = &c.observe_noise,
       .doc = "Relative measurement noise on what policies observe: each measured time per "
              "iteration and utilization is multiplied by 1 + noise x u, u uniform in [-1, 1), "
              "seeded by the run's seed, the job and the time "
              "([runtime.md](runtime.md#what-policies-may-observe)). 0 (exact) by default: no "
              "cited measurement of a profiler's error is used.",
       .min = 0,
       .max = 0.9},
      {.path = "runtime.interference.model",
       .type = KeyType::kText,
       .field = &c.interference_model,
       .doc = "Co-location slowdown of packed jobs: `fitted` (a pair's measured slowdown, else "
              "the model fitted to Gavel's measured pairs) or `slide` (the HotCloud'20 slide's "
              "line through slope and onset, for sensitivity studies) "
              "([runtime.md](runtime.md#co-location-and-interference)).",
       .choices = {"fitted", "slide"}},
      {.path = "runtime.interference.slope",
       .type = KeyType::kNumber,
       .field = &c.interference.slope,
       .doc = "With `model: slide`: co-location slowdown 1 + slope × max(0, U − onset), U the "
              "summed GPU utilization of a device's jobs.",
       .min = 0},
      {.path = "runtime.interference.onset",
       .type = KeyType::kNumber,
       .field = &c.interference.onset,
       .doc = "The summed utilization above which co-located jobs slow down.",
       .min = 0},
      {.path = "runtime.interference.by_type",
       .type = KeyType::kNode,
       .doc = "A curve per device type, `{TYPE: {slope: S, onset: O}}`; other types use the two "
              "keys above ([runtime.md](runtime.md#co-location-and-interference)).",
       .default_text = "`{}`"},
      {.path = "runtime.interference.pairs",
       .type = KeyType::kText,
       .field = &c.interference_pairs_file,
       .doc = "A CSV of measured slowdowns of model pairs on one device, used as measured for "
              "the pairs it lists; `none` for none "
              "([runtime.md](runtime.md#measured-pairs)).",
       .default_text = "`configs/interference/gavel-pairs.csv` with `model: fitted`, none with "
                       "`slide`"},
      {.path = "runtime.scaling",
       .type = KeyType::kText,
       .field = &c.scaling,
       .doc = "How a job's speed grows with its workers when `network.contention` is off: "
              "`linear`, or `analytic` (compute plus gradient exchange, cross-node traffic at "
              "the NIC's bandwidth; [scaling.md](scaling.md)).",
       .choices = {"linear", "analytic"}},
      {.path = "runtime.measured_scaling",
       .type = KeyType::kFlag,
       .field = &c.measured_scaling,
       .doc = "Under `runtime.scaling: analytic`: a job whose model has measured step times per "
              "placement (Pollux's profiles, on T4) scales as measured on that device type "
              "instead of by the formula "
              "([scaling.md](scaling.md#measured-scaling-in-the-runtime))."},
      {.path = "runtime.resize",
       .type = KeyType::kText,
       .field = &c.resize,
       .doc = "What a resize or a change of parameter servers costs: `flat` "
              "(`costs.resize_s`), `checkpoint` (restart, growing with the model) or `live` "
              "(`costs.live_resize_s`) ([scaling.md](scaling.md#resize-mechanisms)).",
       .choices = {"flat", "checkpoint", "live"}},
      {.path = "runtime.share.model",
       .type = KeyType::kText,
       .field = &c.share.model,
       .doc = "Speed of a job under the share controller: `token` (token-based time-slicing, "
              "charged the hook's overhead and the gap at each token handoff) or `ideal` "
              "(min(1, share / u) at no cost, for sensitivity studies) "
              "([runtime.md](runtime.md#fractional-shares)).",
       .choices = {"token", "ideal"}},
      {.path = "runtime.share.hook_overhead",
       .type = KeyType::kNumber,
       .field = &c.share.hook_overhead,
       .doc = "With `model: token`: the fraction of speed the controller's CUDA interception "
              "costs a job (GaiaGPU, BDCloud'18: 1.015% measured; Gemini, TCC'21: under 5%).",
       .min = 0,
       .max = 0.5},
      {.path = "runtime.share.quota_s",
       .type = KeyType::kNumber,
       .field = &c.share.quota_s,
       .doc = "With `model: token`: how long a tenant holds the token per turn (KubeShare's and "
              "Gemini's base quota, 300 ms).",
       .min = 0,
       .max = 3600,
       .min_open = true},
      {.path = "runtime.share.handoff_s",
       .type = KeyType::kNumber,
       .field = &c.share.handoff_s,
       .doc = "With `model: token`: the device's idle gap at each token handoff; an estimate, "
              "1 ms (plausible 0.1–10 ms).",
       .min = 0,
       .max = 3600},
      {.path = "runtime.checkpoint_gb_s",
       .type = KeyType::kNumber,
       .field = &c.checkpoint_gb_s,
       .doc = "Storage bandwidth (GB/s) a checkpoint-restart writes and reads the model's state "
              "at.",
       .min = 0,
       .min_open = true},
      {.path = "network.contention",
       .type = KeyType::kFlag,
       .field = &c.network.contention,
       .doc = "Flows on the topology's links, max-min fair ([network.md](network.md)). Off by "
              "default: "
              "trace durations already hold the communication of each job's placement."},
  };
  // The failure model (failure_config.h): after every other key, so that run.yaml keeps its order.
  keys.insert(
      keys.end(),
      {
          {.path = "failures.enabled",
           .type = KeyType::kFlag,
           .field = &c.failures.enabled,
           .doc = "Devices, nodes and links fail and are repaired; a job on a failed component "
                  "loses its work since its last checkpoint ([failures.md](failures.md)). Off by "
                  "default."},
          {.path = "failures.log",
           .type = KeyType::kText,
           .field = &c.failures.log_file,
           .doc = "A CSV of `time_s,component,duration_s` replayed instead of drawing the failures "
                  "([failures.md](failures.md#a-failure-log)).",
           .default_text = "none"},
          {.path = "failures.checkpoint_interval_s",
           .type = KeyType::kSeconds,
           .field = &c.failures.checkpoint_interval_s,
           .doc = "A running job writes a checkpoint every this many seconds; 0: never "
                  "([failures.md](failures.md#checkpoints)).",
           .min = 0},
          {.path = "failures.checkpoint_s",
           .type = KeyType::kSeconds,
           .field = &c.failures.checkpoint_s,
           .doc = "What one checkpoint costs; unset: the model's state over "
                  "`runtime.checkpoint_gb_s`.",
           .min = 0,
           .unset = -1,
           .default_text = "from the model"},
      });
  for (auto [name, process] :
       {std::pair<const char*, FailureProcess*>{"device", &c.failures.device},
        {"node", &c.failures.node},
        {"link", &c.failures.link}}) {
    const std::string at = std::string("failures.") + name;
    keys.push_back({.path = at + ".mtbf_h",
                    .type = KeyType::kNumber,
                    .field = &process->mtbf_h,
                    .doc = "Mean hours between failures of one " + std::string(name) +
                           " (Llama 3, [failures.md](failures.md#defaults)).",
                    .min = 0,
                    .min_open = true});
    keys.push_back({.path = at + ".distribution",
                    .type = KeyType::kText,
                    .field = &process->distribution,
                    .doc = "Time to failure: `exponential`, or `weibull` of shape `shape`.",
                    .choices = {"exponential", "weibull"}});
    keys.push_back({.path = at + ".shape",
                    .type = KeyType::kNumber,
                    .field = &process->shape,
                    .doc = "Weibull shape k (below 1: failures cluster early).",
                    .min = 0,
                    .min_open = true});
    keys.push_back({.path = at + ".repair_h",
                    .type = KeyType::kNumber,
                    .field = &process->repair_h,
                    .doc = "Mean hours a repair takes (an estimate, [failures.md](failures.md#"
                           "defaults)).",
                    .min = 0});
    keys.push_back({.path = at + ".repair",
                    .type = KeyType::kText,
                    .field = &process->repair,
                    .doc = "Repair time: `exponential` or `fixed`.",
                    .choices = {"exponential", "fixed"}});
  }
  keys.push_back({.path = "failures.device.by_type",
                  .type = KeyType::kNode,
                  .doc = "A GPU type's own process, `{TYPE: {mtbf_h: H, ...}}` with the keys of "
                         "`failures.device`, which the types not named and the keys not given "
                         "keep ([failures.md](failures.md#per-gpu-type)).",
                  .default_text = "`{}`"});
  return keys;
}

} // namespace dlsim
