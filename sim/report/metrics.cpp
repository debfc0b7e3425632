#include "sim/report/metrics.h"

namespace dlsim {

void UtilizationMeter::on_advance(SimTime from, SimTime to, const View& view) {
  const SimState& s = view.raw();
  auto dt = static_cast<double>(to - from);
  allocated_gpu_us_ += s.busy_gpus * dt;
  effective_gpu_us_ += s.effective_gpus * dt;
  busy_gpu_us_ += s.kernel_busy_gpus * dt;
  held_core_us_ += s.cores_held * dt;
  if (allocated_us_.empty()) {
    allocated_us_.assign(s.busy_by_type.size(), 0.0);
    effective_us_.assign(s.busy_by_type.size(), 0.0);
    for (std::size_t t = 0; t < s.devices_of_type.size(); ++t) {
      // exact: cluster_yaml.cpp bounds the types to DeviceTypeId
      if (s.devices_of_type[t] > 0) present_.push_back(static_cast<DeviceTypeId>(t));
    }
  }
  for (DeviceTypeId t : present_) {
    allocated_us_[t] += s.busy_by_type[t] * dt;
    effective_us_[t] += s.effective_by_type[t] * dt;
  }
}

namespace {

Sample sample_at(SimTime t, const View& view, double cores) {
  const SimState& s = view.raw();
  Sample sample{t, s.running, s.pending, s.busy_gpus,
                s.gpu_count > 0 ? s.effective_gpus / s.gpu_count : 0.0};
  sample.held_core_util = cores > 0 ? s.cores_held / cores : 0.0;
  sample.busy_util = s.gpu_count > 0 ? s.kernel_busy_gpus / s.gpu_count : 0.0;
  // The other kinds: sums over their types (few), then divided by the kind's device count.
  std::array<std::uint32_t, kDeviceKinds> devices{};
  std::array<double, kDeviceKinds> effective{};
  const Cluster& c = *s.cluster;
  for (std::size_t type = 0; type < s.devices_of_type.size(); ++type) {
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
  return sample;
}

// Every column but the time: exact, since equal states give bit-equal values.
bool same_values(const Sample& a, const Sample& b) {
  return a.running == b.running && a.pending == b.pending && a.allocated_gpus == b.allocated_gpus &&
         a.effective_util == b.effective_util && a.allocated_by_kind == b.allocated_by_kind &&
         a.effective_util_by_kind == b.effective_util_by_kind &&
         a.held_core_util == b.held_core_util && a.busy_util == b.busy_util;
}

} // namespace

void Sampler::hand_on(const Sample& sample) {
  sink_(sample);
  last_ = sample;
  held_ = false;
  ++rows_;
  if (rows_ % rows_per_doubling_ == 0 && period_ <= kNever / 2) {
    period_ *= 2;
    ++doublings_;
  }
}

void Sampler::sample_through(SimTime end, bool inclusive, const View& view) {
  if (next_ == kNever || (inclusive ? next_ > end : next_ >= end)) return;
  if (cores_ < 0) {
    cores_ = 0;
    for (const Node& n : view.cluster().nodes)
      cores_ += n.cpu_cores;
  }
  const Sample sample = sample_at(next_, view, cores_);
  ++grid_times_;
  if (rows_ == 0 || !same_values(sample, last_)) {
    hand_on(sample);
  } else {
    held_ = true;
    held_at_ = next_;
  }
  // The next grid time saturates at kNever instead of wrapping past it.
  next_ = next_ > kNever - period_ ? kNever : next_ + period_;
  if (next_ == kNever || (inclusive ? next_ > end : next_ >= end)) return;
  // The grid times up to `end` see the state just sampled: the last of them is held, the rest
  // need no row at all.
  const SimTime span = inclusive ? end - next_ : end - next_ - 1;
  const SimTime steps = span / period_;
  grid_times_ += static_cast<std::size_t>(steps) + 1;
  held_ = true;
  held_at_ = next_ + steps * period_;
  next_ = held_at_ > kNever - period_ ? kNever : held_at_ + period_;
}

void Sampler::on_advance(SimTime from, SimTime to, const View& view) {
  (void)from;
  sample_through(to, false, view);
}

void Sampler::on_run_end(const View& view) {
  sample_through(view.now(), true, view);
  // The last grid time of the run always has its row, so that the series visibly reaches the end.
  if (held_) {
    Sample last = last_;
    last.time = held_at_;
    hand_on(last);
  }
}

} // namespace dlsim
