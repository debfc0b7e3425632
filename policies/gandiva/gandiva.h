// Gandiva (Xiao et al., "Gandiva: Introspective Cluster Scheduling for Deep Learning", OSDI'18):
// the mini-batch boundary as a scheduling point, with time-slicing, packing, migration and
// grow-shrink as primitives, decided from measurements. docs/gandiva.md.
#pragma once

#include "policies/registry.h"

namespace dlsim {

PolicyEntry gandiva_policy();

} // namespace dlsim
