// The terms of the rate model and their composition (docs/runtime.md#the-rate-model).
#include "sim/runtime/rate_model.h"

#include "sim/network/iteration_time.h"
#include "sim/network/network_model.h"

#include <fmt/format.h>

#include <stdexcept>

namespace dlsim {

double timeslice_slowdown(unsigned k, double switch_s, double slice_s) {
  double eff = timeslice_efficiency(switch_s, slice_s);
  if (!(eff > 0)) {
    throw std::logic_error(
        fmt::format("time slice of {} s is not longer than the switch of {} s", slice_s, switch_s));
  }
  return k / eff;
}

double device_slowdown(const DeviceSlot& slot, const RuntimeConfig& config) {
  if (slot.running < 2) return 1.0;
  if (slot.sliced > 0) return timeslice_slowdown(slot.running, config.costs.switch_s, slot.slice_s);
  return interference_slowdown(config.interference, slot.running_util);
}

double device_effective(const DeviceSlot& slot, const RuntimeConfig& config) {
  if (slot.running == 0) return 0.0;
  if (slot.sliced == 0) return std::min(1.0, slot.running_util);
  double mean = slot.running_util / slot.running;
  return slot.running >= 2 ? mean * timeslice_efficiency(config.costs.switch_s, slot.slice_s)
                           : mean;
}

double job_rate(const SimState& s, JobId j, const NetworkModel* net) {
  const JobState& job = s.jobs[j];
  const JobRequest& req = s.workload->jobs[j].request;
  const PerfTable& perf = s.workload->perf;
  double iter_s = scaled_iter_s(device_iter_s(perf, req.model, job.type), req.workers, job.workers);
  // A gang runs at the pace of its slowest device.
  double slowdown = 1.0;
  for (DeviceId d : job.devices) {
    slowdown = std::max(slowdown, device_slowdown(s.slots[d], s.config));
  }
  if (net != nullptr) {
    // Compute, plus the communication not hidden behind the backward pass (docs/network.md).
    CommTimes comm = net->times(j);
    double overlap = perf.traffic[req.model].comm_overlap;
    return 1.0 / iteration_seconds(iter_s * slowdown, comm.comm_s, overlap, comm.input_s);
  }
  return 1.0 / (iter_s * slowdown);
}

} // namespace dlsim
