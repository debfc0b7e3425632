// Whether a need fits what a node has free, and how many workers of a per-worker request it
// holds: one rule with one slack for every caller (the runtime's checks of an action, the
// policies' what-if counts, the workload's "can this job ever fit"), so that no policy counts a
// worker that the runtime would then refuse.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace dlsim {

// CPU cores, GB and shares are sums of decimal fractions (0.1 + 0.2 is not 0.3 in binary): a
// request that fits exactly must not fail by the last bit.
inline constexpr double kFitSlack = 1e-9;

inline bool fits_in(double need, double free) {
  return need <= free + kFitSlack;
}

// The most workers of `per` each that fit in `free` (fits_in(k * per, free)); `unbounded` when
// per is 0 or less (the request asks for none of it).
inline std::uint32_t
workers_in(double free, double per,
           std::uint32_t unbounded = std::numeric_limits<std::uint32_t>::max()) {
  if (per <= 0) return unbounded;
  double k = std::floor((free + kFitSlack) / per);
  if (!(k > 0)) return 0;
  if (k >= static_cast<double>(unbounded)) return unbounded;
  // The division rounds: step to the k that the product test itself accepts.
  while (k > 0 && !fits_in(k * per, free))
    k -= 1;
  while (k + 1 < static_cast<double>(unbounded) && fits_in((k + 1) * per, free))
    k += 1;
  return static_cast<std::uint32_t>(k);
}

// What one worker of a job takes on its node: devices of one type (0 for a host task), CPU
// cores and memory (0: not constrained).
struct WorkerShape {
  std::uint32_t devices = 0;
  double cpus = 0;
  double mem_gb = 0;
};

// How many workers of shape s fit on a node with `devices` free devices of their type, `cpus`
// free cores and `mem_gb` free memory: the one rule for the runtime's checks and the policies'
// what-if counts. A host task's workers are bounded by cores and memory alone.
inline std::uint32_t
workers_fit(std::uint32_t devices, double cpus, double mem_gb, const WorkerShape& s,
            std::uint32_t unbounded = std::numeric_limits<std::uint32_t>::max()) {
  std::uint32_t k = s.devices == 0 ? unbounded : devices / s.devices;
  k = std::min(k, workers_in(cpus, s.cpus, unbounded));
  return std::min(k, workers_in(mem_gb, s.mem_gb, unbounded));
}

} // namespace dlsim
