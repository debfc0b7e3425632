// Elastic jobs' actions beyond Control::resize: the cost of a resize by mechanism and the change
// of a parameter-server job's shards (docs/scaling.md#resize-mechanisms).
#include "sim/runtime/control.h"
#include "sim/runtime/ps_placement.h"
#include "sim/runtime/resize_cost.h"
#include "sim/runtime/simulation.h"

#include <fmt/format.h>

#include <vector>

namespace dlsim {

double Simulation::cpu_resize_cost(JobId j) const {
  // Cores are fixed when TensorFlow's tasks start: changing them restarts every task from a
  // checkpoint (AITurbo, slide 27), so runtime.resize's flat and live costs do not apply.
  RuntimeConfig restart = s_.config;
  restart.resize = "checkpoint";
  const JobRequest& req = s_.workload->jobs[j].request;
  const PerfTable& perf = s_.workload->perf;
  const double bytes = req.model < perf.traffic.size() ? perf.traffic[req.model].model_bytes : 0.0;
  return resize_cost_s(restart, bytes);
}

void Simulation::do_set_cpus(JobId j, double ps_cores, double worker_cores,
                             std::string_view reason) {
  JobState& job = s_.jobs[j];
  check_count(j, job.resizes, JobState::kMaxMoves, "set_cpus");
  settle(j);
  set_running(j, false);
  set_status(j, JobStatus::kResizing);
  const std::vector<DeviceId> same(job.devices.begin(), job.devices.end());
  release(j); // gives back the old cores
  s_.extras[j].cores = JobExtras::Cores{ps_cores, worker_cores};
  job.own_cores = true;
  ledger::occupy(s_, j, WorkerPlaces::on_devices(same));
  ledger::occupy_ps(s_, j);
  job.rate = 0;
  ++job.resizes;
  cancel_finish(j);
  const double cost_s = cpu_resize_cost(j);
  emit(j, JobAction::kResize, job.devices,
       reason.empty() ? std::string_view("CPU cores changed") : reason);
  if (cost_s > 0) {
    queue_.push(time_after(s_.now, cost_s, "costs.restart_s"), EventKind::kActionDone, j,
                job.generation);
    return;
  }
  set_status(j, JobStatus::kRunning);
  set_running(j, true);
  refresh_rates(job.devices);
}

void Control::set_cpus(JobId j, double ps_cores, double worker_cores, std::string_view reason) {
  const JobState& job = state(j);
  const JobRequest& req = request(j);
  const RequestDetails& rd = details(j);
  if (is_host_task(req)) sim_.refuse(j, "set_cpus", "a host task holds no devices");
  if (job.status != JobStatus::kRunning) {
    sim_.refuse(j, "set_cpus", fmt::format("job is {}, not running", to_string(job.status)));
  }
  if (!(worker_cores >= rd.cpus_per_worker && worker_cores <= 1024)) {
    sim_.refuse(j, "set_cpus",
                fmt::format("cores per worker must be from the request's {} to 1024, got {}",
                            rd.cpus_per_worker, worker_cores));
  }
  if (!holds_ps_cores(req)) {
    if (ps_cores != 0) {
      sim_.refuse(j, "set_cpus",
                  fmt::format("the job's parameter servers hold no cores (its request gives no "
                              "ps_cpus): ps cores must be 0, got {}",
                              ps_cores));
    }
  } else if (!(ps_cores >= req.ps_cpus && ps_cores <= 1024)) {
    sim_.refuse(j, "set_cpus",
                fmt::format("cores per parameter server must be from the request's {} to 1024, "
                            "got {}",
                            req.ps_cpus, ps_cores));
  }
  if (ps_cores == sim_.s_.ps_cores(j) && worker_cores == sim_.s_.worker_cores(j)) {
    sim_.refuse(j, "set_cpus", "the cores asked for are the job's now");
  }
  if (auto why = check_ps_cores(*this, j, job.devices, holds_ps_cores(req) ? sim_.s_.ps(j) : 0,
                                ps_cores, worker_cores, true)) {
    sim_.refuse(j, "set_cpus", *why);
  }
  sim_.do_set_cpus(j, ps_cores, worker_cores, reason);
}

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
  if (holds_ps_cores(request(j))) {
    if (auto why = check_ps_cores(*this, j, job.devices, ps, sim_.s_.ps_cores(j),
                                  sim_.s_.worker_cores(j), true))
      sim_.refuse(j, "set_ps", *why);
  }
  sim_.check_count(j, job.resizes, JobState::kMaxMoves, "set_ps");
  ++sim_.s_.jobs[j].resizes;
  sim_.s_.extras[j].ps_shards = ps;
  sim_.s_.jobs[j].own_ps = true;
  // The same devices: released and taken again, so rates and flows are recomputed with the new
  // shards once the cost is paid.
  const std::vector<DeviceId> same(job.devices.begin(), job.devices.end());
  sim_.do_move(j, same, sim_.resize_cost(j), JobStatus::kResizing);
  sim_.emit(j, JobAction::kResize, state(j).devices,
            reason.empty() ? std::string_view("parameter servers changed") : reason);
}

} // namespace dlsim
