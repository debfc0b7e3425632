// Tiresias' discretized 2D-LAS (tiresias.cpp).
#pragma once

#include "policies/registry.h"

#include <vector>

namespace dlsim {

PolicyEntry tiresias_policy();

// The options tiresias_options builds from the resolved parameters; the defaults are in
// tiresias_policy()'s declaration only.
struct TiresiasOptions {
  std::vector<double> thresholds; // GPU-seconds, increasing; K = thresholds + 1 queues
  double promote_knob = 0;        // 0 = no starvation guard
  // After each decision, jobs holding devices move ahead of the waiting ones in their queue,
  // keeping their order, and a demoted job joins its new queue behind the jobs waiting there:
  // the list handling of the Tiresias simulator. Otherwise FIFO by time of entering the queue.
  bool running_first = false;
};
// Reads `thresholds`, `promote_knob` and `queue_order`, whose declared ranges resolve_params
// checked; InputError naming thresholds when one is beyond dlsim's time limit.
TiresiasOptions tiresias_options(const PolicyParams& params);

} // namespace dlsim
