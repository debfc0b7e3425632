#pragma once
#include "policies/registry.h"
#include <memory>
namespace dlsim {
// Reads `group_by`: true for "queue", false for "user"; InputError naming the key otherwise.
bool drf_by_queue(const PolicyParams& params);
// by_queue: fair shares between the trace's queues (virtual clusters) instead of its users.
std::unique_ptr<Policy> make_drf(Placement placement, bool by_queue);
} // namespace dlsim
