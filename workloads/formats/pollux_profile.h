// The per-application profiles of Pollux's simulator (petuum/adaptdl, osdi21-artifact,
// simulator/traces/<application>/; Qiao et al., OSDI'21), bundled in traces/pollux-profiles/:
// measured step times by placement and per-GPU batch size (placements.csv, scalability.csv) and
// validation curves with gradient statistics by total batch size (validation-<B>.csv). dlsim
// derives from them the run time of a job at a fixed number of replicas and batch size
// (docs/traces.md#pollux---format-pollux).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dlsim {

struct StepTimePoint {
  double local_bsz = 0;
  double step_time_s = 0; // one step, all-reduce included
  double sync_time_s = 0; // the part of it spent synchronizing
};

struct ValidationEpoch {
  double progress = 0; // progress at the end of the epoch, in steps at the initial batch size
  double grad_sqr = 0; // squared norm of the gradient during the epoch
  double grad_var = 0; // variance of the gradient during the epoch
};

struct PolluxProfile {
  std::string application;
  // placements.csv: step times by placement ("24" = 2 replicas on one node, 4 on another;
  // normalized to the lexicographically smallest rotation), sorted by local_bsz.
  std::map<std::string, std::vector<StepTimePoint>> placements;
  // scalability.csv: step times by (num_nodes, num_replicas), sorted by local_bsz.
  std::map<std::pair<int, int>, std::vector<StepTimePoint>> scalability;
  // validation-<B>.csv by total batch size B, each cut to `epochs` rows.
  std::map<int, std::vector<ValidationEpoch>> validation;
  int epochs = 0;           // rows of the shortest validation file: the epochs a job trains
  int init_batch_size = 0;  // the smallest validated batch size
  int max_batch_size = 0;   // the largest
  double min_local_bsz = 0; // smallest local_bsz of placements.csv
  double max_local_bsz = 0; // largest, or the application's override (yolov3: 8)
};

// Reads <dir>/<application>/; an InputError naming the file and line for a bad row or a missing
// file. max_local_bsz > 0 overrides the profile's largest per-GPU batch.
PolluxProfile load_pollux_profile(const std::string& dir, const std::string& application,
                                  double max_local_bsz);

// How a job of `replicas` GPUs and total batch `batch_size` runs (docs/traces.md#pollux).
struct PolluxRun {
  std::string placement;  // e.g. "24" for 6 replicas on 4-GPU nodes
  int local_bsz = 0;      // per-GPU batch of one micro-step
  int accum_steps = 0;    // gradient-accumulation steps before each synchronization
  int batch_size = 0;     // the batch the replicas actually train with
  double step_time_s = 0; // one optimizer step: step + accum_steps x (step - sync)
  double run_time_s = 0;  // the sum over the epochs
};

// Linear interpolation in local_bsz between the two measured points around it (sorted by
// local_bsz); false when it lies outside the measured range.
bool step_time_at(const std::vector<StepTimePoint>& points, double local_bsz, StepTimePoint& out);

// The run time, or a FieldError-style message in `error` (empty when fine) naming what is out
// of the profile's range.
PolluxRun pollux_run_time(const PolluxProfile& profile, int replicas, int batch_size,
                          std::string& error);

} // namespace dlsim
