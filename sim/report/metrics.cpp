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
  sink_(Sample{t, s.running, s.pending, s.busy_gpus,
               s.gpu_count > 0 ? s.effective_gpus / s.gpu_count : 0.0});
  ++rows_;
  if (rows_ % rows_per_doubling_ == 0 && period_ <= kNever / 2) {
    period_ *= 2;
    ++doublings_;
  }
  // The next sample time saturates at kNever instead of wrapping past it.
  next_ = t > kNever - period_ ? kNever : t + period_;
}

void Sampler::on_advance(SimTime from, SimTime to, const View& view) {
  (void)from;
  while (next_ < to)
    take(next_, view);
}

void Sampler::on_run_end(const View& view) {
  while (next_ <= view.now() && next_ != kNever)
    take(next_, view);
}

} // namespace dlsim
