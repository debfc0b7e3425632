#pragma once
#include "policies/registry.h"
#include <memory>
#include <vector>
namespace dlsim {
struct TiresiasOptions {
  std::vector<double> thresholds{3600}; // GPU-seconds, increasing; K = thresholds + 1 queues
  double promote_knob = 0;              // 0 = no starvation guard
};
// Reads `thresholds` and `promote_knob`; InputError naming the key when out of range.
TiresiasOptions tiresias_options(const PolicyParams& params);
std::unique_ptr<Policy> make_tiresias(Placement placement, TiresiasOptions options);
} // namespace dlsim
