// The defragmentation plan's indexes (plan_index.h).
#include "policies/gandiva/plan_index.h"

#include "policies/gandiva/affinity.h"

#include <algorithm>

namespace dlsim::gandiva {

const std::vector<NodeId>& PlanIndex::nodes_with_free() {
  if (!free_known_) {
    // Only the nodes the runtime's FreeIndex lists with a free device of type t can have one
    // that no group reserves either.
    free_by_node_.resize(view_.cluster().nodes.size());
    const FreeIndex& index = view_.free();
    for (std::uint32_t k = 1; k <= index.max_per_node(t_); ++k) {
      for (NodeId m : index.nodes_with(t_, k)) {
        free_by_node_[m] = free_on(view_, st_, m, t_);
        if (!free_by_node_[m].empty()) free_nodes_.push_back(m);
      }
    }
    std::sort(free_nodes_.begin(), free_nodes_.end());
    free_known_ = true;
  }
  return free_nodes_;
}

const std::vector<DeviceId>& PlanIndex::free_of(NodeId m) {
  (void)nodes_with_free();
  return free_by_node_[m];
}

const std::vector<std::uint32_t>& PlanIndex::movable_on(NodeId n) {
  if (movable_by_node_.empty()) {
    movable_by_node_.resize(view_.cluster().nodes.size());
    // (node, members, devices, id): sorted, each node's groups in the planner's order.
    std::vector<std::tuple<NodeId, std::size_t, std::size_t, std::uint32_t>> keys;
    for (std::uint32_t gid : movable_) {
      const Group& g = st_.groups.at(gid);
      if (g.type == t_)
        keys.emplace_back(view_.cluster().devices[g.devices[0]].node, g.members.size(),
                          g.devices.size(), gid);
    }
    std::sort(keys.begin(), keys.end());
    for (const auto& [node, members, devices, gid] : keys)
      movable_by_node_[node].push_back(gid);
  }
  return movable_by_node_[n];
}

std::span<const std::uint32_t> PlanIndex::joinable(std::uint32_t cls, std::size_t devices) {
  if (!joinable_known_) {
    // A joinable group is movable (not grown or converting, on one node, every member
    // running); with exact slices, where only single-member groups are movable, merging is off
    // and nothing asks.
    const std::size_t room = view_.config().max_timeslice_jobs;
    for (std::uint32_t tid : movable_) {
      const Group& tg = st_.groups.at(tid);
      if (tg.mode == Mode::kSlice && tg.type == t_ && tg.members.size() < room)
        joinable_keys_.emplace_back(tg.cls, tg.devices.size(), tg.members.size(), tid);
    }
    std::sort(joinable_keys_.begin(), joinable_keys_.end());
    for (const auto& key : joinable_keys_)
      joinable_.push_back(std::get<3>(key));
    joinable_known_ = true;
  }
  auto first = std::lower_bound(joinable_keys_.begin(), joinable_keys_.end(),
                                std::make_tuple(cls, devices, std::size_t{0}, std::uint32_t{0}));
  auto last = std::lower_bound(joinable_keys_.begin(), joinable_keys_.end(),
                               std::make_tuple(cls, devices + 1, std::size_t{0}, std::uint32_t{0}));
  return {joinable_.data() + (first - joinable_keys_.begin()),
          static_cast<std::size_t>(last - first)};
}

std::size_t PlanIndex::leavable_on(NodeId n) {
  if (!leavable_.empty()) return leavable_[n];
  const auto& nodes = view_.cluster().nodes;
  leavable_.assign(nodes.size(), 0);
  // The two nodes with the most free devices: a group leaving one of them can go to the other.
  std::size_t most = 0;
  std::size_t second = 0;
  NodeId most_node = 0;
  for (NodeId m : nodes_with_free()) {
    const std::size_t k = free_of(m).size();
    if (k > most) {
      second = most;
      most = k;
      most_node = m;
    } else if (k > second) {
      second = k;
    }
  }
  const std::size_t room = view_.config().max_timeslice_jobs;
  for (NodeId m = 0; m < nodes.size(); ++m) {
    for (std::uint32_t gid : movable_on(m)) {
      const Group& g = st_.groups.at(gid);
      bool may_leave = (m == most_node ? second : most) >= g.devices.size();
      if (!may_leave && merge_ && g.mode == Mode::kSlice) {
        for (std::uint32_t tid : joinable(g.cls, g.devices.size())) {
          const Group& tg = st_.groups.at(tid);
          if (tg.members.size() + g.members.size() > room) break; // so are the rest
          if (view_.cluster().devices[tg.devices[0]].node != m) {
            may_leave = true;
            break;
          }
        }
      }
      if (may_leave) leavable_[m] += g.devices.size();
    }
  }
  return leavable_[n];
}

} // namespace dlsim::gandiva
