// AITurbo's +CPU(ps) and +CPU(worker) moves (slides 20-21; docs/aiturbo.md#resource-adjustment):
// how much one more core per parameter server or per worker would change a running job's time
// per iteration, from the analytic model's CPU phases (docs/scaling.md#cpu-cores-of-ps-and-
// workers) at the job's placement, and whether its nodes hold the cores.
#pragma once

#include "sim/runtime/view.h"

namespace dlsim {

// The analytic model's step time of running job j at its placement with `ps_cores` per shard and
// `worker_cores` per worker, over the same with its cores now: what the speed model's time per
// iteration is multiplied by. 1 when the runtime leaves cores out of a job's speed (scaling not
// analytic, or a model without traffic facts).
double cpu_step_ratio(const View& v, JobId j, double ps_cores, double worker_cores);

// Remaining service after one more core per PS (+CPU(ps)) and per worker (+CPU(worker)), given
// the remaining service v_now at the job's cores now and the pause a change costs; kNoMove when
// the job cannot make the move: its PS hold no cores (no ps_cpus), its workers ask for none (their
// copies are then not modelled), or its nodes lack the cores.
struct CpuMoves {
  double add_ps_cpu;
  double add_worker_cpu;
};
CpuMoves cpu_moves(const View& v, JobId j, double v_now, double pause_s);

// The pause of a change of cores: a TensorFlow restart (Simulation::cpu_resize_cost, the
// checkpoint-restart of docs/scaling.md#resize-mechanisms whatever runtime.resize is).
double cpu_resize_pause_s(const View& v, JobId j);

} // namespace dlsim
