// Observers that measure a run: utilization integrals and the sampled time series.
#pragma once

#include "sim/runtime/observer.h"

#include <vector>

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

// Samples the state every `period` (the state at time t is the one after all decisions at t).
class Sampler final : public RunObserver {
public:
  explicit Sampler(SimTime period) : period_(period) {}
  void on_advance(SimTime from, SimTime to, const View& view) override;
  void on_run_end(const View& view) override;
  [[nodiscard]] const std::vector<Sample>& samples() const { return samples_; }

private:
  void take(SimTime t, const View& view);
  SimTime period_;
  SimTime next_ = 0;
  std::vector<Sample> samples_;
};

} // namespace dlsim
