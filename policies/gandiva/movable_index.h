// The groups defragmentation may move, indexed as its plans read them (plan_index.h), kept from
// plan to plan. Under a standing queue a plan is made at almost every decision, and only a few
// groups change between two of them: an entry is replaced when its group changed, instead of every
// movable group being sorted into the index again at each plan.
#pragma once

#include "sim/cluster/cluster.h"

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace dlsim::gandiva {

// CPUs and memory the members of a group hold (all its devices are on one node).
struct Usage {
  double cpu = 0;
  double mem = 0;
};

// What the index reads of a movable group.
struct MovableKey {
  DeviceTypeId type = 0;
  NodeId node = 0; // of its devices (a movable group is on one node)
  std::uint32_t members = 0;
  std::uint32_t devices = 0;
  std::uint32_t cls = 0; // its GPU-count class
  bool slice = false;    // time-sliced (not packed)
  bool joinable = false; // time-sliced, with room for another member
  Usage usage;           // usage_of (plan_index.h): what moving it takes on its destination
};

class MovableIndex {
public:
  // A node's movable groups in the order the planner tries them: fewest members, then fewest
  // devices, then id (its class and mode come after the unique id: they never decide the order).
  struct OnNode {
    std::uint32_t members, devices, gid, cls;
    bool slice;
    auto operator<=>(const OnNode&) const = default;
  };
  // The joinable groups by class and devices, then fewest members first, then id (then its node,
  // which never decides the order).
  struct Joinable {
    std::uint32_t cls, devices, members, gid;
    NodeId node;
    auto operator<=>(const Joinable&) const = default;
  };

  // Group gid is movable with that key from now on (nullopt: it is not, or no longer exists).
  void set(std::uint32_t gid, const std::optional<MovableKey>& key);
  // The movable groups of type t on node n.
  [[nodiscard]] std::span<const OnNode> on_node(DeviceTypeId t, NodeId n) const;
  // The joinable groups of type t and class cls with `devices` devices.
  [[nodiscard]] std::span<const Joinable> joinable(DeviceTypeId t, std::uint32_t cls,
                                                   std::uint32_t devices) const;
  // Into out, each (class, devices) with a joinable group of type t, in order.
  void joinable_classes(DeviceTypeId t,
                        std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) const;
  // The usage of movable group gid, as last set.
  [[nodiscard]] Usage usage(std::uint32_t gid) const { return key_[gid]->usage; }
  // Group gid's key as last set (nullopt: not movable).
  [[nodiscard]] std::optional<MovableKey> key(std::uint32_t gid) const {
    return gid < key_.size() ? key_[gid] : std::nullopt;
  }

private:
  std::vector<std::optional<MovableKey>> key_;            // [gid] as last set
  std::vector<std::vector<std::vector<OnNode>>> on_node_; // [type][node], sorted
  std::vector<std::vector<Joinable>> joinable_;           // [type], sorted
};

} // namespace dlsim::gandiva
