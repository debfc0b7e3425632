// Defragmentation plans that found nothing, remembered until something a plan reads changes: a
// standing queue asks for the same plan at decision after decision, and it fails the same way
// while the groups, their members and the nodes stay as they were.
#pragma once

#include "sim/runtime/view.h"

#include <cstdint>
#include <map>
#include <tuple>
#include <utility>

namespace dlsim::gandiva {

class FailedPlans {
public:
  // What a plan reads of the waiting job: its shape, the device types it accepts (its request's
  // types and its model's), its cores and memory (its details); and whether its class may merge
  // groups (below its share).
  using Key = std::tuple<std::uint32_t, std::uint32_t, std::int32_t, std::uint16_t, ModelId,
                         std::uint32_t, bool>;
  // (State::groups_stamp, the runtime's node log stamp): besides the key, a plan reads only the
  // groups, their members' runtime state and the nodes' free devices, CPUs and memory.
  using Stamp = std::pair<std::uint64_t, std::uint64_t>;

  static Key key_of(const JobRequest& r, bool merge) {
    return {r.workers, r.devices_per_worker, r.device_type, r.type_set, r.model, r.details, merge};
  }
  // True when a plan for `key` found nothing at `stamp`.
  [[nodiscard]] bool known(const Key& key, const Stamp& stamp) const {
    auto it = failed_.find(key);
    return it != failed_.end() && it->second == stamp;
  }
  void add(const Key& key, const Stamp& stamp) { failed_[key] = stamp; }

private:
  std::map<Key, Stamp> failed_;
};

} // namespace dlsim::gandiva
