// The strict-order loop shared by the non-preemptive baselines (fifo, sjf, shortest-gpu-time):
// waiting jobs start in increasing key, and the first one that does not fit blocks every job
// behind it (head-of-line blocking, as in the baselines of Tiresias, Gu et al., NSDI'19, 6.1).
#pragma once

#include "policies/placement.h"
#include "sim/runtime/policy.h"

#include <functional>
#include <memory>

namespace dlsim {

// A job's place in the order, read once when it arrives; ties go to the lower job id.
using ArrivalKey = std::function<double(const View& view, JobId j)>;

std::unique_ptr<Policy> make_strict_order(Placement placement, ArrivalKey key);

} // namespace dlsim
