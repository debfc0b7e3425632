// What the runtime keeps of failures and checkpoints (docs/failures.md): per job, per device and
// for the run. Empty (and never read) unless the experiment enables failures or checkpoints.
#pragma once

#include "sim/engine/time.h"
#include "sim/runtime/failure_config.h"

#include <cstdint>
#include <vector>

namespace dlsim {

// One job's checkpoints and failures.
struct JobFailures {
  double ckpt_done = 0;    // iterations in the last checkpoint written (where a restart resumes)
  SimTime ckpt_run = 0;    // the job's run time when that checkpoint began
  double pending_done = 0; // the same for a checkpoint being written
  SimTime pending_run = 0;
  SimTime since = 0;             // when the checkpoint being written, or the restart paid, began
  SimTime ckpt_time = 0;         // time spent writing checkpoints
  SimTime lost = 0;              // run time whose work was lost to failures
  SimTime restart_time = 0;      // time spent restarting after failures
  std::uint32_t failures = 0;    // interruptions suffered
  std::uint32_t checkpoints = 0; // checkpoints written
  std::uint32_t epoch = 0;       // bumps to cancel the pending checkpoint timer
  // The job's finish as last projected (kNever: none) and the job generation it holds for.
  std::uint32_t finish_gen = 0;
  SimTime finish_at = kNever;
  // A checkpoint timer held back because the job's projected finish comes first: its time, and
  // the queue position it was given when armed (docs/failures.md#cost).
  SimTime held_due = 0;
  std::uint64_t held_seq = 0;
  std::uint32_t held_epoch = 0;
  bool held = false;
  bool checkpointing = false;  // writing a checkpoint now (status kResizing)
  bool restarting = false;     // failed: its next placement pays the restart cost
  bool restart_paying = false; // paying that cost now (status kStarting)
};
// One per job when failures or checkpoints are on (docs/failures.md#cost gives the size).
static_assert(sizeof(JobFailures) == 112);

struct FailureState {
  bool on = false;                     // failures drawn or replayed
  bool checkpoints = false;            // periodic checkpoints
  std::vector<JobFailures> jobs;       // by job, when either is on
  std::vector<std::uint8_t> down;      // by device: how many failed components take it down
  std::uint32_t down_devices = 0;      // devices down now
  std::uint32_t down_gpus = 0;         // of them GPUs
  SimTime down_since_change = 0;       // the last time down_gpus changed
  double gpu_down_seconds = 0;         // integral of down_gpus over time
  std::vector<FailureRecord> happened; // every failure applied, in order: the run's failure log
  std::uint64_t interruptions = 0;     // jobs stopped by a failure
  [[nodiscard]] bool any() const { return on || checkpoints; }
};

} // namespace dlsim
