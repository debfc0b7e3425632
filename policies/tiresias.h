#pragma once
#include "policies/registry.h"
#include <memory>
#include <vector>
namespace dlsim {
struct TiresiasOptions {
  std::vector<double> thresholds{3600}; // GPU-seconds, increasing; K = thresholds + 1 queues
  double promote_knob = 0;              // 0 = no starvation guard
  // After each decision, jobs holding devices move ahead of the waiting ones in their queue,
  // keeping their order, and a demoted job joins its new queue behind the jobs waiting there:
  // the list handling of the Tiresias simulator. Default: FIFO by time of entering the queue.
  bool running_first = false;
};
// Reads `thresholds`, `promote_knob` and `queue_order`; InputError naming the key when out of
// range.
TiresiasOptions tiresias_options(const PolicyParams& params);
std::unique_ptr<Policy> make_tiresias(Placement placement, TiresiasOptions options);
} // namespace dlsim
