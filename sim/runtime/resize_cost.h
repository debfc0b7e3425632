// What a resize costs (docs/scaling.md#resize-mechanisms): the flat costs.resize_s, a
// checkpoint-restart whose cost grows with the model, or Elastic-TensorFlow's live add/remove.
#pragma once

// The runtime's truth: policies are compiled with DLSIM_POLICY_CODE (policies/CMakeLists.txt), so
// a policy that includes this header does not build (the ctest policy_cannot_include.*).
#ifdef DLSIM_POLICY_CODE
#error                                                                                             \
    "sim/runtime/resize_cost.h is the resize cost model, the runtime's truth: a policy decides from observations (View, observations), never from the runtime's models (docs/architecture.md#the-layers)"
#endif

#include "sim/runtime/runtime_config.h"

namespace dlsim {

// A checkpoint holds the weights and one optimizer slot per weight (SGD momentum), FP32: twice
// the gradient bytes. Adam's two slots would make it three.
constexpr double kCheckpointStateFactor = 2.0;

// Seconds a running job pauses to change its workers or parameter servers, for a model of
// model_bytes gradient bytes (0 for a job without a model):
//   flat:       costs.resize_s
//   checkpoint: costs.restart_s + 2 x kCheckpointStateFactor x model_bytes / checkpoint_gb_s
//               (write the checkpoint, restart every task, read it back)
//   live:       costs.live_resize_s (workers join or leave between steps)
inline double resize_cost_s(const RuntimeConfig& c, double model_bytes) {
  if (c.resize == "checkpoint") {
    return c.costs.restart_s +
           2.0 * kCheckpointStateFactor * model_bytes / (c.checkpoint_gb_s * 1e9);
  }
  if (c.resize == "live") return c.costs.live_resize_s;
  return c.costs.resize_s;
}

} // namespace dlsim
