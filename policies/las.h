#pragma once
#include "policies/registry.h"
#include <memory>
namespace dlsim {
// Reads `interval_s` (>= 0); InputError naming the key otherwise.
double las_interval(const PolicyParams& params);
// interval_s: seconds between the rounds at which running jobs may be preempted (0 = at every
// arrival, finish and completed action).
// hetero: service counted in normalized units (the device-seconds the work done so far would
// have taken on the job's fastest type) and the types of the jobs started chosen to maximise
// summed normalized throughput (policies/type_choice.h); docs/policies.md.
// blind_types (ignored with hetero): each started job takes the compatible type with the most free
// devices, blind to speed: the heterogeneity-agnostic baseline of Gavel's LAS experiment.
std::unique_ptr<Policy> make_las(Placement placement, double interval_s, bool hetero = false,
                                 bool blind_types = false);
} // namespace dlsim
