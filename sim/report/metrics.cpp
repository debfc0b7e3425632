#include "sim/report/metrics.h"

namespace dlsim {

void UtilizationMeter::on_advance(SimTime from, SimTime to, const View& view) {
  const SimState& s = view.raw();
  auto dt = static_cast<double>(to - from);
  allocated_gpu_us_ += s.busy_gpus * dt;
  effective_gpu_us_ += s.effective_gpus * dt;
}

void Sampler::take(SimTime t, const View& view) {
  const SimState& s = view.raw();
  samples_.push_back(Sample{t, s.running, s.pending, s.busy_gpus,
                            s.gpu_count > 0 ? s.effective_gpus / s.gpu_count : 0.0});
}

void Sampler::on_advance(SimTime from, SimTime to, const View& view) {
  (void)from;
  while (next_ < to) {
    take(next_, view);
    next_ += period_;
  }
}

void Sampler::on_run_end(const View& view) {
  while (next_ <= view.now()) {
    take(next_, view);
    next_ += period_;
  }
}

} // namespace dlsim
