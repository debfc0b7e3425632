// The runtime's parameters: action costs, the co-location interference model, sharing limits.
// Defaults and their sources: docs/runtime.md.
#pragma once

#include "sim/runtime/failure_config.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dlsim {

// Measured step-time ratios by placement (sim/runtime/measured_scaling.h, the runtime's truth:
// only declared here so that RuntimeConfig can hold the table).
struct MeasuredScalingTable;

struct Costs {
  double start_s = 0;    // first start: 0 so that a FIFO replay reproduces trace durations
  double suspend_s = 5;  // checkpoint to storage at a mini-batch boundary
  double resume_s = 5;   // restore from the checkpoint
  double migrate_s = 10; // suspend + move + resume
  double resize_s = 5;   // re-partition data-parallel workers
  // Time-slicing: the cost of one switch between jobs sharing a device in turn, paid at a
  // mini-batch boundary. Gandiva (Xiao et al., OSDI'18) reports 100 ms to 1 s per switch and
  // under 2% of a 60 s slice; 1 s is the upper end.
  double switch_s = 1;
  // Changing a running job's share (Control::set_share): the job pauses while its container is
  // re-created with the new limits (KubeShare fixes gpu_request / gpu_limit at pod creation), the
  // same order as a resize.
  double set_share_s = 5;
  // runtime.resize: checkpoint: the fixed part of a checkpoint-restart (every task re-created,
  // the framework started and the graph rebuilt; an estimate, docs/scaling.md).
  double restart_s = 30;
  // runtime.resize: live: workers join or leave between steps without a restart; Elan (Xie et
  // al., ICDCS'20) reports about 1 s for scaling in or out.
  double live_resize_s = 1;
};

// The slide's line (runtime.interference.model: slide, not the default): slowdown of co-located
// jobs as a function of the summed GPU utilization U of the running jobs on a device:
// 1 + slope * max(0, U - onset), through the 1.5x (U = 1.0) and 4x (U = 2.0) ends of the range
// in Yeung et al., HotCloud'20, slide 17 (docs/runtime.md#the-slides-line).
struct Interference {
  double slope = 2.5;
  double onset = 0.8;
};

// Slowdowns of model pairs sharing one device, by the run's device-type and model ids:
// slowdown[(type * models + a) * models + b] is the factor of a job of model a packed with one of
// model b. Asymmetric: (a, b) and (b, a) are two factors. Under the slide's line it holds the
// measured pairs only (runtime.interference.pairs), 0 where nothing was measured; under the
// fitted model (`complete`) every entry is set, measured or predicted (docs/runtime.md).
struct InterferencePairs {
  std::uint32_t models = 0;
  std::vector<double> slowdown;
  bool complete = false; // every pair has a factor: the fitted model's table
  [[nodiscard]] bool empty() const { return slowdown.empty(); }
  [[nodiscard]] double at(std::size_t type, std::size_t a, std::size_t b) const {
    std::size_t i = (type * models + a) * models + b;
    return i < slowdown.size() ? slowdown[i] : 0.0;
  }
};

// The network model (docs/network.md). Off by default: trace durations already include the
// communication of the placement each job had, so a replay reproduces them only without it.
struct NetworkConfig {
  bool contention = false; // flows on the topology's links, max-min fair; communication time
};

// The share controller's cost (docs/runtime.md#fractional-shares): the NTHU group's token-based
// time-slicing (Gemini, KubeShare). "token" charges the interception hook and the gap at every
// token handoff; "ideal" is the cost-free min(1, share / u), kept for sensitivity studies.
struct ShareController {
  std::string model = "token";
  // The hook's own cost on a job's speed: GaiaGPU's measured mean overhead of intercepting the
  // CUDA driver API, 1.015% (Gu et al., BDCloud'18, abstract); Gemini bounds its whole overhead
  // by 5% (Chen et al., IEEE TCC 2021, abstract).
  double hook_overhead = 0.01;
  // How long a tenant holds the token per turn: the base quota of KubeShare's and Gemini's
  // launchers (`--base_quota 300` ms in launch-backend.py).
  double quota_s = 0.3;
  // The idle gap at each handoff (drain the holder's kernels, pass the token, launch the next
  // holder's): an estimate, 1 ms (plausible 0.1-10 ms), no published measurement found.
  double handoff_s = 0.001;
};

struct RuntimeConfig {
  Costs costs;
  Interference interference;
  // The curve of each device type (by DeviceTypeId), from runtime.interference.by_type; types
  // beyond its end, or all when it is empty, use `interference`.
  std::vector<Interference> interference_by_type;
  // runtime.interference.model: "fitted" (measured pairs, else the model fitted to them) or
  // "slide" (measured pairs given with `pairs`, else the slide's line).
  std::string interference_model = "fitted";
  // runtime.interference.pairs: "" for the default (the bundled Gavel measurements under
  // "fitted", none under "slide"), "none" for none.
  std::string interference_pairs_file;
  InterferencePairs interference_pairs; // the table the CLI builds (sim/cli/prepare.cpp)
  NetworkConfig network;
  ShareController share; // runtime.share.*: the share controller's cost model
  // How a data-parallel job's speed depends on its workers when network.contention is off:
  // "linear" (exactly proportional, the default, so that replays reproduce trace durations) or
  // "analytic" (compute plus the gradient exchange its placement allows; docs/scaling.md).
  std::string scaling = "linear";
  // Under analytic scaling: a model with measured step times per placement (Pollux's profiles)
  // scales as measured on the device type they were measured on (docs/scaling.md#measured-
  // scaling-in-the-runtime); false: the formula for every job.
  bool measured_scaling = true;
  std::shared_ptr<const MeasuredScalingTable> measured_scaling_table; // built by the CLI
  // What a resize (or a change of parameter servers) costs: "flat" (costs.resize_s, the
  // default), "checkpoint" (checkpoint-restart, growing with the model) or "live"
  // (Elastic-TensorFlow's add/remove); sim/runtime/resize_cost.h, docs/scaling.md.
  std::string resize = "flat";
  double checkpoint_gb_s = 1; // storage bandwidth a checkpoint-restart writes and reads at (GB/s)
  unsigned max_jobs_per_device = 2; // how many jobs `pack` may put on one device
  unsigned max_timeslice_jobs = 4;  // how many jobs may take turns on one device (`timeslice`)
  double default_gpu_util = 0.52; // for jobs with no model and no trace value (Jeon et al. ATC'19)
  // How long the profiler must watch a job (alone, or in its own time slices) before a policy may
  // read its measured utilization (View::measured_gpu_util): the "1-min online profiling"
  // baseline of Yeung et al., HotCloud'20.
  double profile_s = 60;
  // Relative measurement noise on what policies observe (View::measured_iteration_s,
  // measured_gpu_util): each reading is multiplied by 1 + observe_noise x u, u uniform in
  // [-1, 1), a pure function of (the run's seed, job, time) (observe_noise.h). 0: exact readings.
  double observe_noise = 0;
  // Failures, repairs and periodic checkpoints (failure_config.h, docs/failures.md).
  FailureConfig failures;
};

} // namespace dlsim
