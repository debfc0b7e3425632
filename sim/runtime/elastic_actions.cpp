// Elastic jobs' actions beyond Control::resize: the cost of a resize by mechanism and the change
// of a parameter-server job's shards (docs/scaling.md#resize-mechanisms).
#include "sim/runtime/control.h"
#include "sim/runtime/resize_cost.h"
#include "sim/runtime/simulation.h"

#include <fmt/format.h>

#include <vector>

namespace dlsim {

double Simulation::resize_cost(JobId j) const {
  const JobRequest& req = s_.workload->jobs[j].request;
  const PerfTable& perf = s_.workload->perf;
  const double bytes = req.model < perf.traffic.size() ? perf.traffic[req.model].model_bytes : 0.0;
  return resize_cost_s(s_.config, bytes);
}

void Control::set_ps(JobId j, std::uint32_t ps, std::string_view reason) {
  const JobState& job = state(j);
  if (job.status != JobStatus::kRunning) {
    sim_.refuse(j, "set_ps", fmt::format("job is {}, not running", to_string(job.status)));
  }
  if (is_host_task(request(j))) sim_.refuse(j, "set_ps", "a host task holds no devices");
  if (request(j).ps == 0) {
    sim_.refuse(j, "set_ps", "the job uses ring all-reduce (ps = 0), not parameter servers");
  }
  if (ps == 0) sim_.refuse(j, "set_ps", "a parameter-server job needs at least 1 server, got 0");
  if (ps > 1024) sim_.refuse(j, "set_ps", fmt::format("at most 1024 servers, got {}", ps));
  ++sim_.s_.jobs[j].resizes;
  sim_.s_.jobs[j].ps = ps;
  // The same devices: released and taken again, so rates and flows are recomputed with the new
  // shards once the cost is paid.
  const std::vector<DeviceId> same(job.devices.begin(), job.devices.end());
  sim_.do_move(j, same, sim_.resize_cost(j), JobStatus::kResizing);
  sim_.emit(j, JobAction::kResize, state(j).devices,
            reason.empty() ? std::string_view("parameter servers changed") : reason);
}

} // namespace dlsim
