// The ledger: what each job holds, and the counters kept with it. A job's workers each take
// their node's cores and memory; a device job's workers each take devices_per_worker devices on
// that node too, and its parameter servers cores on its workers' nodes (ps_placement.h); a host
// task's workers (job.h is_host_task) are workers with no device. Occupying and releasing keep
// the device slots, the free index, the nodes' free cores and memory, the busy counters and the
// change logs in step; rates are the event loop's (Simulation::refresh_rates).
#pragma once

#include "sim/runtime/sim_state.h"

#include <span>

namespace dlsim {

// Where a placement puts a job's workers: devices (devices_per_worker consecutive entries per
// worker, one node each), or, for a host task, nodes (one entry per worker; a node listed k times
// holds k).
struct WorkerPlaces {
  std::span<const DeviceId> devices;
  std::span<const NodeId> nodes;
  static WorkerPlaces on_devices(std::span<const DeviceId> d) { return {d, {}}; }
  static WorkerPlaces on_nodes(std::span<const NodeId> n) { return {{}, n}; }
};

namespace ledger {

// Adds workers to job j's allocation: a fresh one, or more workers of a binding job. Device
// workers take the job's worker cores (SimState::worker_cores), host workers the request's.
void occupy(SimState& s, JobId j, WorkerPlaces at);
// The cores of a device job's parameter servers on its workers' nodes; no-op for a job whose PS
// hold none.
void occupy_ps(SimState& s, JobId j);
// Gives back everything job j holds: devices, nodes' cores and memory, its servers' cores.
// Returns the devices it held (their other holders' rates change).
DeviceList release(SimState& s, JobId j);

} // namespace ledger

} // namespace dlsim
