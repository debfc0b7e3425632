// Measured scaling: for a model with measured step times per placement (Pollux's profiles,
// traces/pollux-profiles), the runtime's analytic scaling uses the measurement instead of the
// formula (docs/scaling.md#measured-scaling-in-the-runtime): a step at a placement takes the
// measured step there over the measured single-GPU step, at the model's per-GPU batch, times
// the job's own single-device step.
#pragma once

// The runtime's truth: policies are compiled with DLSIM_POLICY_CODE (policies/CMakeLists.txt), so
// a policy that includes this header does not build (the ctest policy_cannot_include.*).
#ifdef DLSIM_POLICY_CODE
#error                                                                                             \
    "sim/runtime/measured_scaling.h is the measured scaling of the runtime's rate model, the runtime's truth: a policy decides from observations (View, observations), never from the runtime's models (docs/architecture.md#the-layers)"
#endif

#include "sim/runtime/sim_state.h"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace dlsim {

// One model's measured step-time ratios on one device type, at its per-GPU batch.
struct MeasuredScaling {
  DeviceTypeId type = 0; // the device type the steps were measured on
  // step(placement) / step(one GPU) by placement: GPUs per node, as digits, rotated to the
  // lexicographically smallest rotation ("24" for 2 GPUs on one node and 4 on another).
  std::map<std::string, double> by_placement;
  // The same by (nodes, replicas), for placements measured only by their counts.
  std::map<std::pair<std::uint32_t, std::uint32_t>, double> by_counts;
};

// The measured scaling of the run's models, by ModelId (empty: none measured).
struct MeasuredScalingTable {
  std::vector<MeasuredScaling> by_model;
  std::vector<bool> has; // has[m]: by_model[m] holds model m's measurements
  [[nodiscard]] const MeasuredScaling* find(ModelId m) const {
    return m < has.size() && has[m] ? &by_model[m] : nullptr;
  }
};

// The smallest rotation of the per-node counts, as digits ("24"); "" when a node holds more
// than 9 replicas (no such measurement).
std::string placement_key(std::span<const std::uint32_t> replicas_per_node);

// The ratio for a job with `replicas_per_node` (its nodes in allocation order), or 0 when the
// placement was not measured: an exact placement of by_placement; else, for a node count of
// by_counts, the ratio of the measured replica count, or linear in replicas between the two
// measured counts around it on that node count. Nothing is extrapolated.
double measured_step_ratio(const MeasuredScaling& m,
                           std::span<const std::uint32_t> replicas_per_node);

// The job's replicas on each of its nodes, the nodes in the order its devices first use them.
std::vector<std::uint32_t> replicas_per_node(const Cluster& c, const JobState& job);

} // namespace dlsim
