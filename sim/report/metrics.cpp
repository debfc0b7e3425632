#include "sim/report/metrics.h"

namespace dlsim {

void UtilizationMeter::on_advance(SimTime from, SimTime to, const View& view) {
  const SimState& s = view.raw();
  auto dt = static_cast<double>(to - from);
  allocated_gpu_us_ += s.busy_gpus * dt;
  effective_gpu_us_ += s.effective_gpus * dt;
  if (allocated_us_.empty()) {
    allocated_us_.assign(s.busy_by_type.size(), 0.0);
    effective_us_.assign(s.busy_by_type.size(), 0.0);
    for (DeviceTypeId t = 0; t < s.devices_of_type.size(); ++t) {
      if (s.devices_of_type[t] > 0) present_.push_back(t);
    }
  }
  for (DeviceTypeId t : present_) {
    allocated_us_[t] += s.busy_by_type[t] * dt;
    effective_us_[t] += s.effective_by_type[t] * dt;
  }
}

void Sampler::take(SimTime t, const View& view) {
  const SimState& s = view.raw();
  Sample sample{t, s.running, s.pending, s.busy_gpus,
                s.gpu_count > 0 ? s.effective_gpus / s.gpu_count : 0.0};
  // The other kinds: sums over their types (few), then divided by the kind's device count.
  std::array<std::uint32_t, kDeviceKinds> devices{};
  std::array<double, kDeviceKinds> effective{};
  const Cluster& c = *s.cluster;
  for (DeviceTypeId type = 0; type < s.devices_of_type.size(); ++type) {
    if (s.devices_of_type[type] == 0) continue;
    auto k = static_cast<std::size_t>(c.types[type].kind);
    if (k == static_cast<std::size_t>(DeviceKind::kGpu)) continue;
    devices[k] += s.devices_of_type[type];
    sample.allocated_by_kind[k] += s.busy_by_type[type];
    effective[k] += s.effective_by_type[type];
  }
  for (std::size_t k = 0; k < kDeviceKinds; ++k) {
    if (devices[k] > 0) sample.effective_util_by_kind[k] = effective[k] / devices[k];
  }
  sink_(sample);
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
