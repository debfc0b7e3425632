// Jobs at run time: what happened to each (JobState). What the trace asked for (JobSpec) is plain
// data in sim/workload/workload.h.
#pragma once

#include "sim/cluster/cluster.h"
#include "sim/engine/time.h"
#include "sim/runtime/device_list.h"
#include "sim/workload/workload.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

// No job: the id past every job's (an empty slot, the end of a list).
inline constexpr JobId kNoJob = std::numeric_limits<JobId>::max();

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

// Laid out by size, widest first, so that no byte is padding: 88 bytes, which at 3.4 million
// jobs is most of a run's memory (docs/performance.md#what-the-loop-holds-per-job). What few jobs
// have is kept aside in SimState, read through View: a host task's nodes (hosts), a parameter
// server's nodes and cores (ps_hosts, ps_cores, worker_cores), shares changed by set_share
// (share_min, share_max), a time slice (slice_s), shards changed by set_ps (ps) and the time a
// job ran on devices others were running on too (alone_s, running_alone).
struct JobState {
  // The largest counts of preemptions, and of migrations or resizes, that one job may reach:
  // the runtime refuses the action that would go past them (the counters are bit-fields). A
  // preemption is a suspend and a resume, two events or more: 16.7 million of one job is beyond
  // any run this simulator makes (Philly under tiresias comparing at every event made 36.5
  // million for 82,247 jobs, docs/policies.md).
  static constexpr std::uint32_t kMaxPreemptions = (1U << 24U) - 1;
  static constexpr std::uint32_t kMaxMoves = (1U << 20U) - 1;

  DeviceList devices;           // worker-major: devices_per_worker per worker (device_list.h)
  double done = 0;              // iterations completed
  double rate = 0;              // iterations per second now
  SimTime last_update = 0;      // `done` is exact at this time
  SimTime first_start = -1;     // first allocation
  SimTime end = -1;             // finish (or cancel) time
  SimTime run_time = 0;         // time spent running (making progress)
  double attained = 0;          // device-seconds of running: Tiresias' attained service
  std::uint32_t workers = 0;    // allocated workers
  std::uint32_t generation = 0; // bumps on every change; stale events are dropped
  std::uint32_t nodes_used = 0; // distinct nodes of the current allocation
  DeviceTypeId type = 0;        // of the current (or last) allocation
  JobStatus status = JobStatus::kFuture;
  // One byte for the flags (bit-fields): the byte that keeps the record free of padding.
  bool packed : 1 = false; // placed by `pack` on devices shared with others
  bool sliced : 1 = false; // placed by `timeslice`: takes turns on its devices
  // Control::set_share gave it shares of its own (JobExtras::shares), not the request's.
  bool own_share : 1 = false;
  // Control::set_cpus gave it cores of its own while placed (JobExtras::cores), not the request's.
  bool own_cores : 1 = false;
  // Control::set_ps gave it a number of shards of its own (JobExtras::ps_shards), not the
  // request's.
  bool own_ps : 1 = false;
  // It has run while another job was running on one of its devices (JobExtras::crowded).
  bool crowded : 1 = false;
  // Counts of what was done to it (at most kMaxPreemptions, kMaxMoves), in one 64-bit word.
  std::uint64_t preemptions : 24 = 0;
  std::uint64_t migrations : 20 = 0;
  std::uint64_t resizes : 20 = 0;
};

static_assert(sizeof(JobState) == 88, "docs/performance.md#what-the-loop-holds-per-job");

// A job's counters up to `now`: the runtime settles done, attained and run_time only when a job's
// rate or state changes (Simulation::settle), so a running job's true values add the run since
// last_update, at its current rate and devices. The same arithmetic as settle, so a value read
// here equals the one settle will store.
constexpr SimTime unsettled_run(const JobState& s, SimTime now) {
  return s.status == JobStatus::kRunning && now > s.last_update ? now - s.last_update : 0;
}
// Iterations done.
inline double done_at(const JobState& s, SimTime now) {
  SimTime dt = unsettled_run(s, now);
  return dt > 0 ? s.done + s.rate * to_seconds(dt) : s.done;
}
// Device-seconds of running (Tiresias' attained service).
inline double attained_at(const JobState& s, SimTime now) {
  SimTime dt = unsettled_run(s, now);
  return dt > 0 ? s.attained + static_cast<double>(s.devices.size()) * to_seconds(dt) : s.attained;
}
// Seconds spent running.
inline double run_time_at(const JobState& s, SimTime now) {
  return to_seconds(s.run_time + unsettled_run(s, now));
}

} // namespace dlsim
