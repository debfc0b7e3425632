// Observers that measure a run: utilization integrals and the sampled time series.
#pragma once

#include "sim/runtime/observer.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace dlsim {

// Integrates allocated and effective device-seconds over the run: GPUs (the summary's
// gpu_util_* keys) and every device type present in the cluster (util_by_kind, util_by_type).
class UtilizationMeter final : public RunObserver {
public:
  void on_advance(SimTime from, SimTime to, const View& view) override;
  [[nodiscard]] double allocated_gpu_s() const { return allocated_gpu_us_ / kMicrosPerSecond; }
  [[nodiscard]] double effective_gpu_s() const { return effective_gpu_us_ / kMicrosPerSecond; }
  // GPU-seconds during which some kernel ran (SimState::kernel_busy_gpus), as nvidia-smi counts.
  [[nodiscard]] double busy_gpu_s() const { return busy_gpu_us_ / kMicrosPerSecond; }
  // Node CPU core-seconds held by jobs (SimState::cores_held).
  [[nodiscard]] double held_core_s() const { return held_core_us_ / kMicrosPerSecond; }
  // By DeviceTypeId; empty before the first advance, 0 for types the cluster does not have.
  [[nodiscard]] double allocated_s(DeviceTypeId t) const { return at(allocated_us_, t); }
  [[nodiscard]] double effective_s(DeviceTypeId t) const { return at(effective_us_, t); }

private:
  static double at(const std::vector<double>& us, DeviceTypeId t) {
    return t < us.size() ? us[t] / kMicrosPerSecond : 0.0;
  }
  double allocated_gpu_us_ = 0;
  double effective_gpu_us_ = 0;
  double busy_gpu_us_ = 0;
  double held_core_us_ = 0;
  std::vector<DeviceTypeId> present_; // types with devices: the only ones integrated
  std::vector<double> allocated_us_;
  std::vector<double> effective_us_;
};

struct Sample {
  SimTime time = 0;
  std::uint32_t running = 0;
  std::uint32_t pending = 0;
  std::uint32_t allocated_gpus = 0;
  double effective_util = 0; // effective GPUs / all GPUs, 0..1
  // The other kinds, indexed by DeviceKind (the GPU entries stay 0: the fields above hold them).
  std::array<std::uint32_t, kDeviceKinds> allocated_by_kind{};
  std::array<double, kDeviceKinds> effective_util_by_kind{}; // 0 when the kind has no devices
  // Host CPU cores held by all jobs (workers, parameter servers, host tasks) / the cluster's.
  double held_core_util = 0;
  double busy_util = 0; // kernel-busy GPUs / all GPUs, 0..1: what nvidia-smi would show
};

// Samples the state on a grid of times 0, p, 2p, ... (the state at time t is the one after all
// decisions at t) and hands a sample to `sink` at once, so the series is never held in memory.
// Only change points are handed on: a grid time whose values equal the last row's is left out,
// except the last grid time of the run, which always is (docs/outputs.md). The state between
// events is constant, so an advance costs O(1) however many grid times it spans. The count is
// bounded: after every `rows_per_doubling` rows handed on the period doubles, so a run of length
// T at period p writes at most about rows_per_doubling * log2(T / p) rows.
class Sampler final : public RunObserver {
public:
  static constexpr std::size_t kRowsPerDoubling = 100'000;
  Sampler(SimTime period, std::function<void(const Sample&)> sink,
          std::size_t rows_per_doubling = kRowsPerDoubling)
      : period_(period), sink_(std::move(sink)), rows_per_doubling_(rows_per_doubling) {}
  void on_advance(SimTime from, SimTime to, const View& view) override;
  void on_run_end(const View& view) override;
  [[nodiscard]] SimTime period() const { return period_; } // the last one, after doublings
  [[nodiscard]] std::size_t doublings() const { return doublings_; }
  [[nodiscard]] std::size_t rows() const { return rows_; }             // handed on
  [[nodiscard]] std::size_t grid_times() const { return grid_times_; } // sampled or skipped

private:
  // The sample at next_, handed on when it differs from the last row; then every grid time
  // before `end` (exclusive) or up to it (inclusive), which sees the same state, is skipped.
  void sample_through(SimTime end, bool inclusive, const View& view);
  void hand_on(const Sample& sample);
  SimTime period_;
  std::function<void(const Sample&)> sink_;
  std::size_t rows_per_doubling_;
  std::size_t rows_ = 0;
  std::size_t grid_times_ = 0;
  std::size_t doublings_ = 0;
  SimTime next_ = 0;
  double cores_ = -1;   // the cluster's CPU cores, summed at the first sample
  Sample last_;         // the last row handed on
  bool held_ = false;   // a grid time after last_ was left out (its values are last_'s)
  SimTime held_at_ = 0; // the latest such time
};

} // namespace dlsim
