// What failures and checkpoints cost a run (docs/failures.md#measures): summary.json's
// `failures` object and jobs.csv's extra columns, written only when the experiment has failures
// or checkpoints, so that other runs keep their bytes.
#pragma once

#include "sim/engine/time.h"
#include "sim/report/seconds_text.h"
#include "sim/runtime/sim_state.h"

#include <cstdint>

namespace dlsim {

struct FailureSummary {
  std::uint64_t components_failed = 0; // failures applied (devices, nodes, links)
  std::uint64_t interruptions = 0;     // jobs stopped by them, a job once per failure
  std::uint64_t jobs_interrupted = 0;  // jobs stopped at least once
  std::uint64_t checkpoints = 0;
  double work_lost_s = 0;        // run time whose work was lost, summed over jobs
  double work_lost_gpu_s = 0;    // the same times each job's devices
  double restart_s = 0;          // time spent restarting after failures
  double restart_gpu_s = 0;      // the same times each job's devices
  double goodput_lost_gpu_s = 0; // work_lost_gpu_s + restart_gpu_s
  double checkpoint_s = 0;       // time spent writing checkpoints
  // Effective training time ratio: the run time whose work was kept over the wall time from
  // each job's first start to its end (or the end of the run), summed over the jobs that started.
  double ettr = 0;
  // 1 - GPU-seconds down / (GPUs x the run's length): the share of GPU time that was usable.
  double gpu_availability = 1;
};

FailureSummary summarize_failures(const SimState& s, SimTime end);

// The header's extra columns, and one row's: failures, lost_s, checkpoints, checkpoint_s,
// restart_s.
inline constexpr const char* kFailureColumns =
    ",failures,lost_s,checkpoints,checkpoint_s,restart_s";
inline constexpr std::size_t kFailureColumnsChars = 5 * kMaxNumberChars + 5;
char* write_failure_columns(char* p, const JobFailures& f);

} // namespace dlsim
