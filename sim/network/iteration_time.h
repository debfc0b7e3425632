// A distributed job's time per iteration from its compute time and the communication the
// network model gives it (docs/network.md#iteration-time).
#pragma once

// The runtime's truth: policies are compiled with DLSIM_POLICY_CODE (policies/CMakeLists.txt), so
// a policy that includes this header does not build (the ctest policy_cannot_include.*).
#ifdef DLSIM_POLICY_CODE
#error                                                                                             \
    "sim/network/iteration_time.h is the iteration-time model, the runtime's truth: a policy decides from observations (View, observations), never from the runtime's models (docs/architecture.md#the-layers)"
#endif

#include <algorithm>

namespace dlsim {

// Gradients are produced during the backward pass, so communication can hide only behind that
// part of an iteration: about 2/3 of its compute (training ~ 3 x forward FLOPs, forward 1 and
// backward 2; docs/models.md).
constexpr double kBackwardShare = 2.0 / 3.0;

// compute_s: compute per iteration; comm_s: gradient exchange per iteration at the bandwidth the
// job gets; overlap: the model's comm_overlap, the share of the exchange that can run during
// the backward pass; input_s: time to load one iteration's input over PCIe.
//   exposed = (1 - overlap) comm + max(0, overlap comm - backward share x compute)
//   iteration = max(compute + exposed, input)     (input is prefetched while computing)
inline double iteration_seconds(double compute_s, double comm_s, double overlap, double input_s) {
  double hidden = overlap * comm_s;
  double exposed = (comm_s - hidden) + std::max(0.0, hidden - kBackwardShare * compute_s);
  return std::max(compute_s + exposed, input_s);
}

} // namespace dlsim
