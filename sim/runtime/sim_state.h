// The runtime's state of a run: jobs, device occupancy and the counters metrics read.
#pragma once

#include "sim/cluster/cluster.h"
#include "sim/runtime/change_log.h"
#include "sim/runtime/free_index.h"
#include "sim/runtime/job.h"
#include "sim/runtime/job_lists.h"
#include "sim/runtime/runtime_config.h"

#include <array>
#include <cstdint>
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
};

struct SimState {
  const Cluster* cluster = nullptr;
  const Workload* workload = nullptr;
  RuntimeConfig config;
  SimTime now = 0;
  std::vector<JobState> jobs;
  // A host task's workers' nodes while it holds them, one per worker (a node listed k times holds
  // k): by job, for the few jobs that are host tasks, so JobState need not carry a vector for it.
  std::unordered_map<JobId, std::vector<NodeId>> hosts;
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
  double cores_held = 0;       // node CPU cores held by all jobs (cpus_per_worker per worker)
  // The same two counters per device type (every kind), by DeviceTypeId (docs/outputs.md).
  std::vector<std::uint32_t> busy_by_type;
  std::vector<double> effective_by_type;
  std::uint64_t events = 0; // events applied (stale ones excluded)
};

} // namespace dlsim
