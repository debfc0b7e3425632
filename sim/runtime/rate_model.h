// The rate model: how "who holds which devices" becomes "iterations per second". One function
// per term, each documented in docs/runtime.md#the-rate-model and tested by hand in
// tests/rate_model_test.cpp. The Simulation keeps the event loop and the ledger; it asks job_rate
// for a running job's rate whenever something the rate depends on changes.
//
//   rate = 1 / iteration_seconds(compute_s, comm_s, overlap, input_s)   with contention
//   rate = 1 / compute_s                                                  without
//   compute_s = scaled_iter_s(device_iter_s(model, type), workers_req, workers_alloc)
//               x max over the job's devices of device_slowdown(device)
#pragma once

// The runtime's truth: policies are compiled with DLSIM_POLICY_CODE (policies/CMakeLists.txt), so
// a policy that includes this header does not build (the ctest policy_cannot_include.*).
#ifdef DLSIM_POLICY_CODE
#error                                                                                             \
    "sim/runtime/rate_model.h is the rate model (time slices, interference, shares), the runtime's truth: a policy decides from observations (View, observations), never from the runtime's models (docs/architecture.md#the-layers)"
#endif

#include "sim/runtime/sim_state.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>

namespace dlsim {

class NetworkModel;

// Device speed: seconds per iteration of `model` on one device of `type` at the request's
// batch size (the performance table filled by workloads/ from the zoo and the catalog).
inline double device_iter_s(const PerfTable& perf, ModelId model, DeviceTypeId type) {
  return perf.iter_time(model, type);
}

// Worker-count scaling: data parallelism is linear, so `allocated` workers take
// requested/allocated of the time per iteration the request was given for.
inline double scaled_iter_s(double iter_s, std::uint32_t requested, std::uint32_t allocated) {
  return iter_s * requested / allocated;
}

// Time slices: the fraction of a time-sliced device's time spent computing, when every slice of
// slice_s seconds begins with one switch of switch_s seconds. Only meaningful for
// slice_s > switch_s: Control::timeslice refuses shorter slices, so 0 here marks a slice that
// leaves no time to compute.
inline double timeslice_efficiency(double switch_s, double slice_s) {
  return slice_s > switch_s ? 1.0 - switch_s / slice_s : 0.0;
}

// k jobs taking turns each compute 1/k of the time, less the switches: slowdown k / efficiency.
// Throws std::logic_error for a slice not longer than the switch (never reached: refused).
double timeslice_slowdown(unsigned k, double switch_s, double slice_s);

// Co-location interference (uncontrolled packing): every job running on a device whose running
// jobs' solo utilizations sum to U is slowed by 1 + slope x max(0, U - onset).
inline double interference_slowdown(const Interference& m, double summed_util) {
  double over = summed_util - m.onset;
  return over > 0 ? 1.0 + m.slope * over : 1.0;
}

// The curve of devices of `type`: runtime.interference.by_type's, else the default.
inline const Interference& interference_of(const RuntimeConfig& c, DeviceTypeId type) {
  return type < c.interference_by_type.size() ? c.interference_by_type[type] : c.interference;
}

// Fractional share (controlled sharing): the speed, relative to running alone, of a job granted
// share s of a device that it keeps busy u of the time when alone: min(1, s / u). A job with
// u <= s loses nothing.
inline double share_speed(double share, double solo_util) {
  return solo_util > share ? share / solo_util : 1.0;
}

// The share controller's cost (runtime.share, docs/runtime.md#fractional-shares). Under `token`
// a tenant holds the token for quota_s, then the device idles handoff_s while the holder's
// kernels drain and the next holder launches: of each turn's token time, kernels run
// quota_s / (quota_s + handoff_s). Tenants never run kernels at once (the hook drains before the
// token passes), so no co-location interference applies. `ideal`: 1.
inline double share_token_efficiency(const ShareController& c) {
  return c.model == "ideal" ? 1.0 : c.quota_s / (c.quota_s + c.handoff_s);
}

// The speed, relative to running alone, of a job granted `grant` of a device's token time under
// the controller: (1 - hook_overhead) x min(1, grant x efficiency / u). `ideal`: share_speed.
inline double controller_speed(const ShareController& c, double grant, double solo_util) {
  if (c.model == "ideal") return share_speed(grant, solo_util);
  return (1.0 - c.hook_overhead) * share_speed(grant * share_token_efficiency(c), solo_util);
}

// Work-conserving grants on one device: max-min fair water-filling with floors. Job i has the
// floor lo[i] (its guaranteed share) and the cap hi[i] >= lo[i]. With sum lo <= 1 (admission
// keeps it so), the grants are g[i] = clamp(L, lo[i], hi[i]) for the level L at which they sum
// to 1, or g = hi when the caps sum to at most 1. Writes g into `out` (the same size).
void water_fill(std::span<const double> lo, std::span<const double> hi, std::span<double> out);

// The share job j is granted on device `slot`, among its running holders under the share
// controller (and j): floor share_min, cap max(share_min, min(share_max, gpu_util / efficiency)):
// never more than its max, nor token time it would leave idle alone (its kernel time plus its
// handoffs'), which goes to the others.
double share_grant(const SimState& s, const DeviceSlot& slot, JobId j);

// Useful work on a device under the share controller: the sum over its running jobs (but
// `leaving`, which is stopping) of each job's utilization at its speed,
// u x controller_speed(grant, u) (min(u, grant) under `ideal`).
double share_effective(const SimState& s, const DeviceSlot& slot, JobId leaving = kNoJob);

// The slowdown one device of `type` imposes on each job running on it: 1 alone; time-slicing
// when its jobs take turns; the type's interference curve when they are packed. (Jobs under the
// share controller are slowed by their grant instead: job_rate.)
double device_slowdown(const DeviceSlot& slot, const RuntimeConfig& config, DeviceTypeId type);

// What a device of `type` contributes to effective utilization, the useful work done on it: the
// summed utilization of its running jobs divided by the interference slowdown, capped at 1;
// time-sliced jobs run one at a time, so their mean, less switching time. Either way
// sum(u_j / slowdown).
double device_effective(const DeviceSlot& slot, const RuntimeConfig& config, DeviceTypeId type);

// The slowdown device d imposes on running job j: the measured factor of the pair table when j is
// packed there with exactly one other running job and the table has (j's model, the other's) on
// d's type; else device_slowdown.
double job_slowdown_on(const SimState& s, DeviceId d, JobId j);

// device_effective with the pair table: sum over the running jobs (but `leaving`) of
// u_j / job_slowdown_on, capped at 1.
double device_effective_on(const SimState& s, DeviceId d, JobId leaving);

// The share of time some kernel runs on device d, as nvidia-smi reports utilization, over its
// running jobs (but `leaving`). A job alone keeps it busy u_j of the time. Packed jobs
// (uncontrolled): a job's time outside kernels, (1 - u_j) of an iteration alone, is not
// stretched by sharing the device, so it is idle (1 - u_j) / slowdown_j of the time; with the
// jobs' idle phases independent, busy = 1 - prod_j (1 - u_j) / slowdown_j. Time-sliced and
// share-controlled devices run one job's kernels at a time: busy = the useful work.
double device_kernel_busy_on(const SimState& s, DeviceId d, JobId leaving);

// The running job's rate in iterations per second. `net` is the network model when contention
// is on and the job holds flows there, else null. A job with phases (Workload::phases) runs at
// its phase's: work x the rate of its phase's model.
double job_rate(const SimState& s, JobId j, const NetworkModel* net);

// The rate of running job j were its request `req` (its own, or with a phase's model).
double job_rate_as(const SimState& s, JobId j, const JobRequest& req, const NetworkModel* net);

} // namespace dlsim
