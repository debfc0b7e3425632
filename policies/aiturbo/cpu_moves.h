// AITurbo's +CPU(ps) and +CPU(worker) moves (slides 20-21; docs/aiturbo.md#resource-adjustment):
// how much one more core per parameter server or per worker would change a running job's time
// per iteration, estimated from the times it measured at the cores it ran with, and whether its
// nodes hold the cores.
#pragma once

#include "sim/runtime/view.h"

#include <cstdint>
#include <vector>

namespace dlsim {

// What the policy measured of one job: its mean time per iteration at each (workers, servers,
// cores per server, cores per worker) it ran at.
struct CoreSample {
  std::uint32_t workers = 0, ps = 0;
  double ps_cores = 0, worker_cores = 0;
  double mean_s = 0;
  std::uint32_t count = 0;
};
struct CoreModel {
  std::vector<CoreSample> samples;
  // The sample observed last (an index in samples) and its mean, kept beside the model: a job
  // measured at the same time at the same cores again (every round while nothing moves) changes
  // no mean, so observe_cores only counts it, in `repeats`, without reading samples (a cache
  // miss per running job per round); they are added to that sample's count before any other
  // observation.
  std::uint32_t last = 0;
  std::uint32_t last_workers = 0, last_ps = 0;
  double last_ps_cores = 0, last_worker_cores = 0, last_mean_s = 0;
  std::uint32_t repeats = 0;
};
void observe_cores(CoreModel& m, std::uint32_t workers, std::uint32_t ps, double ps_cores,
                   double worker_cores, double seconds);

// Before a job has run at two core counts of a kind, the share of its step that kind's cores do
// (the part that would shrink as c / c' with c' cores instead of c): an estimate, not a
// measurement; plausible 0 to 0.3 for a PS job's aggregation and update or its workers' copies.
constexpr double kCpuSharePrior = 0.1;

// The estimated step time at (w, p) with `ps_then` cores per server and `worker_then` per worker,
// over the one measured with the cores now (one of the two changes):
// - the ratio of the two measured means when the job ran at both;
// - else 1 - f + f c / c', c the changed kind's cores now and c' then, with f its share of the
//   step fitted from a time measured at another count c'' of that kind (the rest as now):
//   f = (1 - T'' / T) / (1 - c / c''), within [0, 1], the mean over such counts; kCpuSharePrior
//   when there is none; 1 when nothing is measured at the cores now.
double cpu_step_ratio(const CoreModel& m, std::uint32_t workers, std::uint32_t ps, double ps_now,
                      double worker_now, double ps_then, double worker_then);

// Remaining service after one more core per PS (+CPU(ps)) and per worker (+CPU(worker)), given
// the remaining service v_now at the job's cores now and the pause a change costs; kNoMove when
// the job cannot make the move: its PS hold no cores (no ps_cpus), its workers ask for none (their
// copies are then not modelled), or its nodes lack the cores.
struct CpuMoves {
  double add_ps_cpu;
  double add_worker_cpu;
};
CpuMoves cpu_moves(const View& v, JobId j, const CoreModel& m, double v_now, double pause_s);

} // namespace dlsim
