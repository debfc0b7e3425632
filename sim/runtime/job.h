// Jobs at run time: what happened to each (JobState). What the trace asked for (JobSpec) is plain
// data in sim/workload/workload.h.
#pragma once

#include "sim/cluster/cluster.h"
#include "sim/engine/time.h"
#include "sim/workload/workload.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

enum class JobStatus : std::uint8_t {
  kFuture,   // not yet submitted
  kPending,  // submitted, waiting for devices
  kBinding,  // some workers' devices bound, waiting for the rest (no gang scheduling)
  kStarting, // devices held, start or resume cost being paid
  kRunning,
  kSuspending, // devices held, checkpoint being written
  kSuspended,  // preempted: no devices, progress kept
  kMigrating,  // on its new devices, paying the migration cost
  kResizing,   // on its new devices, paying the resize cost
  kFinished,
  kCancelled, // stopped by the policy before finishing (e.g. a hyper-parameter search trial)
};

std::string_view to_string(JobStatus s);

// Finished or cancelled: the job will never hold devices again.
constexpr bool is_over(JobStatus s) {
  return s == JobStatus::kFinished || s == JobStatus::kCancelled;
}
// Submitted and not over: a job a scheduler still has to account for.
constexpr bool is_live(JobStatus s) {
  return s != JobStatus::kFuture && !is_over(s);
}

struct JobState {
  JobStatus status = JobStatus::kFuture;
  DeviceTypeId type = 0;         // of the current (or last) allocation
  std::uint32_t workers = 0;     // allocated workers
  std::vector<DeviceId> devices; // worker-major: devices_per_worker per worker
  double done = 0;               // iterations completed
  double rate = 0;               // iterations per second now
  SimTime last_update = 0;       // `done` is exact at this time
  std::uint32_t generation = 0;  // bumps on every change; stale events are dropped
  SimTime first_start = -1;      // first allocation
  SimTime end = -1;              // finish (or cancel) time
  SimTime run_time = 0;          // time spent running (making progress)
  double attained = 0;           // device-seconds of running: Tiresias' attained service
  std::uint32_t preemptions = 0;
  std::uint32_t migrations = 0;
  std::uint32_t resizes = 0;
  bool packed = false;          // placed by `pack` on devices shared with others
  bool sliced = false;          // placed by `timeslice`: takes turns on its devices
  double slice_s = 0;           // the time slice when sliced
  std::uint32_t nodes_used = 0; // distinct nodes of the current allocation
};

} // namespace dlsim
