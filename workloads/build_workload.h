// Resolves a trace against a cluster and the model zoo into the runtime's Workload: models and
// device types by name, work in iterations, utilization and memory per job, and the check that
// every job could ever fit the cluster.
#pragma once

#include "sim/cluster/cluster.h"
#include "sim/workload/workload.h"
#include "workloads/model_zoo.h"
#include "workloads/trace.h"

#include <cstdint>
#include <string>

namespace dlsim {

struct WorkloadOptions {
  std::string reference_device = "V100"; // the device type trace durations were measured on
  bool assign_models = false;            // draw a zoo model for jobs the trace gives none
  std::uint64_t seed = 1;
  bool skip_bad_jobs = false;
  double default_gpu_util = 0.52;
  // trace.unknown_models: duration runs a job whose model the zoo lacks model-less on its
  // recorded run time; otherwise such a job is a bad row (docs/traces.md).
  bool unknown_models_on_duration = false;
  std::vector<std::string>* warnings = nullptr; // where build_workload says what it did
  // When set: how many jobs' workers no node holds (count_oversized_workers, trace_reshape.h),
  // for the hint of a "cannot fit" error. Counted as the jobs are built, not in a pass of its
  // own, and complete also when build_workload throws an InputError from its loop over jobs.
  std::size_t* oversized_workers = nullptr;
  // When set: unusable_device_types of the built workload, found from each job as it is kept
  // rather than by a pass of its own over them all.
  std::vector<DeviceTypeId>* unusable_types = nullptr;
  // When set: how many jobs on devices have an assumed utilization, default_gpu_util, since
  // neither the trace nor a model gives one (docs/outputs.md#assumed-utilization).
  std::size_t* assumed_util_jobs = nullptr;
};

// Fills the per-model, per-device-type iteration times (docs/models.md).
PerfTable build_perf_table(const ModelZoo& zoo, const std::vector<DeviceType>& types,
                           DeviceTypeId reference);

Workload build_workload(Trace trace, const ModelZoo& zoo, const Cluster& cluster,
                        const WorkloadOptions& options);

// The cluster's device types (with devices) that no job of the workload can ever use: none
// accepts the type, or the model cannot train there or does not fit its memory. `dlsim validate`
// and `run` warn about them.
std::vector<DeviceTypeId> unusable_device_types(const Workload& workload, const Cluster& cluster);

} // namespace dlsim
