// Observers that measure a run: utilization integrals and the sampled time series.
#pragma once

#include "sim/runtime/observer.h"

#include <cstddef>
#include <functional>

namespace dlsim {

// Integrates allocated and effective GPU-seconds over the run.
class UtilizationMeter final : public RunObserver {
public:
  void on_advance(SimTime from, SimTime to, const View& view) override;
  [[nodiscard]] double allocated_gpu_s() const { return allocated_gpu_us_ / kMicrosPerSecond; }
  [[nodiscard]] double effective_gpu_s() const { return effective_gpu_us_ / kMicrosPerSecond; }

private:
  double allocated_gpu_us_ = 0;
  double effective_gpu_us_ = 0;
};

struct Sample {
  SimTime time = 0;
  std::uint32_t running = 0;
  std::uint32_t pending = 0;
  std::uint32_t allocated_gpus = 0;
  double effective_util = 0; // effective GPUs / all GPUs, 0..1
};

// Samples the state every `period` (the state at time t is the one after all decisions at t)
// and hands each sample to `sink` at once, so the series is never held in memory. The count is
// bounded: after every `rows_per_doubling` samples the period doubles (docs/outputs.md), so a
// run of length T at period p writes at most about rows_per_doubling * log2(T / p) rows.
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
  [[nodiscard]] std::size_t rows() const { return rows_; }

private:
  void take(SimTime t, const View& view);
  SimTime period_;
  std::function<void(const Sample&)> sink_;
  std::size_t rows_per_doubling_;
  std::size_t rows_ = 0;
  std::size_t doublings_ = 0;
  SimTime next_ = 0;
};

} // namespace dlsim
