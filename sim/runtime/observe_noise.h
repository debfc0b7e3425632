// Measurement noise on what a policy observes (runtime.observe.noise, RuntimeConfig::
// observe_noise; docs/runtime.md#what-policies-may-observe): a reading is multiplied by
// 1 + noise x u with u uniform in [-1, 1), drawn from a stream that is a pure function of the
// run's seed, the job, the time and the kind of reading, so the same reading at the same instant
// is the same however often and in whatever order policies ask for it.
#pragma once

#include "sim/engine/rng.h"
#include "sim/engine/time.h"

#include <cstdint>

namespace dlsim {

// Kinds of reading, each its own draw.
enum class Reading : std::uint64_t { kIterationTime = 1, kGpuUtil = 2 };

inline double observe_factor(double noise, std::uint64_t run_seed, std::uint32_t job, SimTime at,
                             Reading kind) {
  if (!(noise > 0)) return 1.0;
  static const std::uint64_t base = fnv1a64("runtime.observe.noise");
  Rng r(run_seed ^ base ^ (std::uint64_t{job} * 0x9E3779B97F4A7C15ULL) ^
        (static_cast<std::uint64_t>(at) * 0xC2B2AE3D27D4EB4FULL) ^
        (static_cast<std::uint64_t>(kind) << 56));
  return 1.0 + noise * r.uniform(-1.0, 1.0);
}

} // namespace dlsim
