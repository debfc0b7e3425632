#include "policies/aiturbo/cpu_moves.h"

#include "policies/aiturbo/moves.h"
#include "sim/runtime/ps_placement.h"
#include "sim/runtime/resize_cost.h"
#include "sim/runtime/scaling_model.h"

namespace dlsim {

double cpu_step_ratio(const View& v, JobId j, double ps_cores, double worker_cores) {
  const JobState& st = v.state(j);
  const JobRequest& r = v.request(j);
  const PerfTable& perf = v.perf();
  if (v.config().scaling != "analytic" || st.devices.empty() || r.model >= perf.traffic.size() ||
      !(perf.traffic[r.model].model_bytes > 0)) {
    return 1.0;
  }
  const PerfTable::Traffic& t = perf.traffic[r.model];
  ScalingPlacement p = scaling_placement(v.cluster(), st, v.ps(j));
  p.devices_per_worker = r.devices_per_worker;
  const double compute = perf.iter_time(r.model, st.type);
  p.ps_cores = v.ps_cores(j);
  p.worker_cores = v.worker_cores(j);
  const double now = analytic_step_s(compute, t.model_bytes, t.comm_overlap, p);
  p.ps_cores = ps_cores;
  p.worker_cores = worker_cores;
  const double then = analytic_step_s(compute, t.model_bytes, t.comm_overlap, p);
  return now > 0 ? then / now : 1.0;
}

double cpu_resize_pause_s(const View& v, JobId j) {
  RuntimeConfig restart = v.config();
  restart.resize = "checkpoint";
  const JobRequest& r = v.request(j);
  const PerfTable& perf = v.perf();
  return resize_cost_s(restart,
                       r.model < perf.traffic.size() ? perf.traffic[r.model].model_bytes : 0.0);
}

CpuMoves cpu_moves(const View& v, JobId j, double v_now, double pause_s) {
  CpuMoves out{kNoMove, kNoMove};
  const JobState& st = v.state(j);
  const JobRequest& r = v.request(j);
  const bool ps_cores = holds_ps_cores(r);
  const std::uint32_t shards = ps_cores ? v.ps(j) : 0;
  const double ps_now = v.ps_cores(j);
  const double worker_now = v.worker_cores(j);
  if (ps_cores && ps_now + 1 <= 1024 &&
      !check_ps_cores(v, j, st.devices, shards, ps_now + 1, worker_now, true)) {
    out.add_ps_cpu = v_now * cpu_step_ratio(v, j, ps_now + 1, worker_now) + pause_s;
  }
  if (worker_now > 0 && worker_now + 1 <= 1024 &&
      !check_ps_cores(v, j, st.devices, shards, ps_now, worker_now + 1, true)) {
    out.add_worker_cpu = v_now * cpu_step_ratio(v, j, ps_now, worker_now + 1) + pause_s;
  }
  return out;
}

} // namespace dlsim
