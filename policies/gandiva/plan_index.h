// What a defragmentation plan (defrag.cpp) reads many times, found once per plan: the plan only
// reads the cluster and the groups, so none of it changes while it plans. Indexing it here keeps
// the planner's text to Gandiva's rule (which groups move where) and its cost to the groups and
// nodes that can take part, not every group for every move it weighs. The movable groups' order
// is kept between plans (State::movable_index, brought up to date by refresh_movable_index).
#pragma once

#include "policies/gandiva/state.h"

#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace dlsim::gandiva {

class PlanIndex {
public:
  // t: the plan's device type; merge: whether moved groups may join time-sliced groups;
  // st.movable_index must be up to date (refresh_movable_index), and then st.leavable_index for
  // t (LeavableIndex::refresh).
  PlanIndex(const View& view, const State& st, DeviceTypeId t, bool merge)
      : view_(view), st_(st), t_(t), merge_(merge) {}

  // In id order, the nodes with a device of type t free (free_on without claims): only they
  // can take a moved group on free devices.
  const std::vector<NodeId>& nodes_with_free();
  // Node m's free devices of type t (free_on without claims).
  const std::vector<DeviceId>& free_of(NodeId m);
  // The movable groups of type t on node n in the order the planner tries them: fewest members,
  // then fewest devices, then id.
  [[nodiscard]] std::span<const MovableIndex::OnNode> movable_on(NodeId n) const {
    return st_.movable_index.on_node(t_, n);
  }
  // The time-sliced groups of type t with `devices` devices of class `cls` that a moved group
  // (of one member or more) could join, fewest members first, then in id order: movable (not
  // grown or converting, on one node, every member running) with fewer than
  // runtime.max_timeslice_jobs members (a full group takes nobody). Only asked when merging is
  // allowed, never with exact slices.
  [[nodiscard]] std::span<const MovableIndex::Joinable> joinable(std::uint32_t cls,
                                                                 std::size_t devices) const {
    return st_.movable_index.joinable(t_, cls, static_cast<std::uint32_t>(devices));
  }
  // At most how many devices moving groups off node n can free, whatever the plan has claimed:
  // the devices of the movable groups on n that have somewhere to go with nothing claimed yet.
  // A group has nowhere to go when no other node has as many free devices as it holds, and
  // (merging allowed and the group time-sliced) no joinable group of its class and size on
  // another node has room for its members. Claims only take destinations away, so a group
  // without one now finds none later in the plan. Kept between plans (st.leavable_index).
  [[nodiscard]] std::size_t leavable_on(NodeId n) const {
    return st_.leavable_index.leavable(t_, merge_, n);
  }
  // In id order, the nodes whose free devices of type t (free_on without claims) and
  // leavable_on together reach `least`: a node's plan frees at most that many (claims only take
  // free devices and destinations away), so no other node can free `least` devices.
  [[nodiscard]] std::vector<NodeId> nodes_reaching(std::size_t least) const;

private:
  const View& view_;
  const State& st_;
  DeviceTypeId t_;
  bool merge_;
  std::vector<std::vector<DeviceId>> free_by_node_; // free_of
  std::vector<NodeId> free_nodes_;                  // nodes_with_free
  bool free_known_ = false;
};

// CPUs and memory the members of group g hold (all its devices are on one node).
Usage usage_of(const View& view, const Group& g);

// A group that defragmentation may move (defrag.cpp).
bool movable(const View& view, const Options& opt, const Group& g);

// Brings st.movable_index up to date: every group defragmentation may move now (`movable`) has
// its entry, and no other. Only the groups that changed since the last call (State::touch,
// State::set_devices, a member's job log mark) get a new entry; every other entry is what it was
// (its group's movability, type, node, members, devices, class and mode are unchanged).
void refresh_movable_index(const View& view, State& st);

} // namespace dlsim::gandiva
