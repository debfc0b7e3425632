// What Gandiva's placement reads of a job, as one key: two jobs of one kind are placed alike on
// the same cluster and groups.
#pragma once

#include "sim/runtime/view.h"

#include <cstdint>
#include <tuple>

namespace dlsim::gandiva {

// Its shape, the device types it accepts (its request's types and its model's), and its cores
// and memory (its details).
using JobKind =
    std::tuple<std::uint32_t, std::uint32_t, std::int32_t, std::uint16_t, ModelId, std::uint32_t>;
inline JobKind kind_of(const JobRequest& r) {
  return {r.devices(), r.devices_per_worker, r.device_type, r.type_set, r.model, r.details};
}

} // namespace dlsim::gandiva
