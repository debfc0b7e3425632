// The runtime's state of a run: jobs, device occupancy and the counters metrics read.
#pragma once

#include "sim/cluster/cluster.h"
#include "sim/runtime/change_log.h"
#include "sim/runtime/failure_state.h"
#include "sim/runtime/free_index.h"
#include "sim/runtime/job.h"
#include "sim/runtime/job_extras.h"
#include "sim/runtime/job_lists.h"
#include "sim/runtime/runtime_config.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace dlsim {

class NetworkModel;

// Who holds a device. Most devices hold zero or one job; `pack` may put up to
// RuntimeConfig::max_jobs_per_device (at most kMaxShare) on one.
struct DeviceSlot {
  static constexpr unsigned kMaxShare = 8;
  std::array<JobId, kMaxShare> jobs{};
  std::uint8_t count = 0;
  std::uint8_t running = 0;    // holders that are making progress
  double running_util = 0;     // summed GPU utilization of those
  double mem_gb = 0;           // summed memory footprint of all holders
  double guaranteed = 0;       // summed share_min of all holders (at most 1 when any is < 1)
  std::uint8_t controlled = 0; // holders under the share controller (under_controller)
  std::uint8_t sliced = 0;     // holders that take turns (time-slicing); then every holder does
  double slice_s = 0;          // their common time slice
  double effective = 0;        // this device's share of SimState::effective_gpus
  double kernel_busy = 0;      // this device's share of SimState::kernel_busy_gpus
};

struct SimState {
  const Cluster* cluster = nullptr;
  const Workload* workload = nullptr;
  RuntimeConfig config;
  SimTime now = 0;
  std::vector<JobState> jobs;
  // What few jobs have beyond their JobState (job_extras.h), read through the accessors below.
  JobExtrasTable extras;
  JobLists lists; // jobs by where they stand, in the order they got there (job_lists.h)
  std::vector<DeviceSlot> slots;
  FreeIndex free;
  std::vector<double> node_cpu_free;
  std::vector<double> node_mem_free;
  // Nodes and jobs marked as they change (change_log.h): every write to `free`, node_cpu_free,
  // node_mem_free marks the node; every change of a job's status, devices or rate marks the job.
  ChangeLogs changes;
  std::vector<DeviceTypeId> gpu_types_present; // GPU types the cluster has, catalog order
  // For jobs that name no device type: per model, the GPU types present whose memory holds the
  // model, fastest first for that model (so that "any GPU" means the best one free, not K80).
  std::vector<std::vector<DeviceTypeId>> gpu_types_for_model;
  // For jobs that accept a set of types: [type_set * models + model], the same filter and order
  // over the set's types that the cluster has.
  std::vector<std::vector<DeviceTypeId>> set_types_for_model;
  std::vector<std::uint32_t> devices_of_type; // by DeviceTypeId: how many the cluster has
  std::vector<DeviceTypeId> all_type_ids;     // 0..types-1, for one-type spans
  const NetworkModel* network = nullptr;      // routes and link load (always set by Simulation)
  std::vector<bool> queue_used;  // by Workload::queues index: does any job of the trace use it
  bool analytic_scaling = false; // config.scaling == "analytic" (scaling_model.h)

  // Counters kept current on every change, for metrics and policies.
  std::uint32_t pending = 0; // submitted, holding nothing, not finished (pending + suspended)
  std::uint32_t running = 0; // in state running
  std::uint32_t finished = 0;
  std::uint32_t cancelled = 0;
  std::uint32_t gpu_count = 0; // devices of kind GPU in the cluster
  std::uint32_t busy_gpus = 0; // GPUs held by at least one job
  double effective_gpus = 0;   // sum over GPUs of device_effective (rate_model.h)
  // Sum over GPUs of the share of time some kernel runs there, as nvidia-smi reports
  // utilization (device_kernel_busy_on, rate_model.h; docs/outputs.md).
  double kernel_busy_gpus = 0;
  double cores_held = 0; // node CPU cores held by all jobs (cpus_per_worker per worker)
  // The same two counters per device type (every kind), by DeviceTypeId (docs/outputs.md).
  std::vector<std::uint32_t> busy_by_type;
  std::vector<double> effective_by_type;
  std::uint64_t events = 0; // events applied (stale ones excluded)
  // Failures, repairs and checkpoints (failure_state.h): empty when the experiment has none.
  FailureState failures;

  // What job j asked for beyond its shape (workload.h RequestDetails).
  [[nodiscard]] const RequestDetails& details_of(JobId j) const {
    return workload->details_of(workload->jobs[j].request);
  }
  // Job j's utilization alone (Workload::solo_util): the truth the rate models read.
  [[nodiscard]] double solo_util_of(JobId j) const {
    return workload->solo_util_of(workload->jobs[j].request);
  }
  [[nodiscard]] double share_min(JobId j) const {
    return jobs[j].own_share ? extras.at(j).shares.min : details_of(j).gpu_share_min;
  }
  [[nodiscard]] double share_max(JobId j) const {
    return jobs[j].own_share ? extras.at(j).shares.max : details_of(j).gpu_share_max;
  }
  // Cores per PS shard and per worker now: the request's, or set_cpus' while placed.
  [[nodiscard]] double ps_cores(JobId j) const {
    return jobs[j].own_cores ? extras.at(j).cores.ps : workload->jobs[j].request.ps_cpus;
  }
  [[nodiscard]] double worker_cores(JobId j) const {
    return jobs[j].own_cores ? extras.at(j).cores.worker : details_of(j).cpus_per_worker;
  }
  // Job j's entry of `extras`, or null when it has none.
  [[nodiscard]] const JobExtras* extras_of(JobId j) const {
    if (extras.empty()) return nullptr;
    auto it = extras.find(j);
    return it == extras.end() ? nullptr : &it->second;
  }
  // Drops job j's entry of `extras` once none of its parts is in use.
  void drop_unused_extras(JobId j) {
    auto it = extras.find(j);
    if (it != extras.end() && !it->second.in_use(jobs[j])) extras.erase(it);
  }
  // A host task's nodes while it holds them (one per worker); empty otherwise.
  [[nodiscard]] std::span<const NodeId> hosts_of(JobId j) const {
    const JobExtras* e = extras_of(j);
    return e ? std::span<const NodeId>(e->hosts) : std::span<const NodeId>();
  }
  // The shards' nodes while they hold cores; empty otherwise.
  [[nodiscard]] std::span<const NodeId> ps_hosts_of(JobId j) const {
    const JobExtras* e = extras_of(j);
    return e ? std::span<const NodeId>(e->ps_hosts) : std::span<const NodeId>();
  }
  // Parameter-server shards now: the request's, or set_ps'.
  [[nodiscard]] std::uint32_t ps(JobId j) const {
    return jobs[j].own_ps ? extras.at(j).ps_shards : workload->jobs[j].request.ps;
  }
  // Time run alone on all its devices (the only job running on each), up to now: what a
  // profiler needs to measure the job's own utilization (View::measured_gpu_util). Its run time
  // less the time it ran crowded: both count the same spells of running (Simulation::
  // set_running opens and closes them where the status enters and leaves kRunning).
  [[nodiscard]] SimTime alone_time(JobId j) const {
    const JobState& job = jobs[j];
    SimTime alone = job.run_time + unsettled_run(job, now);
    if (job.crowded) {
      const JobExtras::Crowded& c = extras.at(j).crowded;
      alone -= c.time + (c.since >= 0 ? now - c.since : 0);
    }
    return alone;
  }
  // Time a profiler has measured the job's own GPU utilization, up to now: its time alone, plus
  // its own turns on time-sliced devices (each of k jobs taking turns computes (1 - switch_s /
  // slice_s) / k of the time, and nvidia-smi reads the device's utilization then as the job's).
  // Packed and share-controlled spells count nothing: the readings mix the jobs' kernels
  // (docs/runtime.md#what-policies-may-observe).
  [[nodiscard]] SimTime profiled_time(JobId j) const {
    const JobState& job = jobs[j];
    SimTime t = alone_time(j);
    if (job.crowded) {
      const JobExtras::Crowded& c = extras.at(j).crowded;
      t += c.profiled + (c.since >= 0 ? sliced_credit(now - c.since, c.weight) : 0);
    }
    return t;
  }
  // The credit of `spell` of crowded running at share `weight` (whole microseconds, rounded).
  static SimTime sliced_credit(SimTime spell, double weight) {
    return weight > 0 ? static_cast<SimTime>(std::llround(static_cast<double>(spell) * weight)) : 0;
  }
  // The share of the current spell a profiler credits to running job j (1 alone; see Crowded).
  [[nodiscard]] double profiling_weight(JobId j) const {
    const JobState& job = jobs[j];
    if (job.status != JobStatus::kRunning) return 0;
    return job.crowded && extras.at(j).crowded.since >= 0 ? extras.at(j).crowded.weight : 1.0;
  }
  // Running now, alone on all its devices.
  [[nodiscard]] bool running_alone(JobId j) const {
    const JobState& job = jobs[j];
    return job.status == JobStatus::kRunning && !(job.crowded && extras.at(j).crowded.since >= 0);
  }
  // The slice of a job placed by `timeslice` (0 for one never sliced).
  [[nodiscard]] double slice_s(JobId j) const {
    const JobExtras* e = extras_of(j);
    return e ? e->slice_s : 0.0;
  }
  // Under the share controller: packed with a guaranteed share below a whole device. Such a job
  // is granted a share of each of its devices and isolated from interference; the others on its
  // devices are too (admission never mixes them with whole-device jobs).
  [[nodiscard]] bool under_controller(JobId j) const { return jobs[j].packed && share_min(j) < 1; }
};

} // namespace dlsim
