// Gandiva (Xiao et al., "Gandiva: Introspective Cluster Scheduling for Deep Learning", OSDI'18):
// the mini-batch boundary as a scheduling point, with time-slicing, packing, migration and
// grow-shrink as primitives, decided from measurements. docs/gandiva.md.
#pragma once

#include "policies/gandiva/state.h"
#include "policies/registry.h"

#include <memory>

namespace dlsim {

// Reads slice_s, exact_slices, packing, pack_util_limit, migration and grow_shrink; InputError
// naming the key when out of range.
gandiva::Options gandiva_options(const PolicyParams& params);
std::unique_ptr<Policy> make_gandiva(gandiva::Options options);

} // namespace dlsim
