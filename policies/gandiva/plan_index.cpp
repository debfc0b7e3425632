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
    for (std::uint32_t gid : movable_) {
      const Group& g = st_.groups.at(gid);
      if (g.type == t_) movable_by_node_[view_.cluster().devices[g.devices[0]].node].push_back(gid);
    }
    // Each list is in id order; a stable sort keeps it among equals.
    for (auto& on_node : movable_by_node_) {
      std::stable_sort(on_node.begin(), on_node.end(), [&](std::uint32_t a, std::uint32_t b) {
        const Group& ga = st_.groups.at(a);
        const Group& gb = st_.groups.at(b);
        return std::make_pair(ga.members.size(), ga.devices.size()) <
               std::make_pair(gb.members.size(), gb.devices.size());
      });
    }
  }
  return movable_by_node_[n];
}

std::span<const std::uint32_t> PlanIndex::joinable(std::uint32_t cls, std::size_t devices) {
  if (!joinable_known_) {
    const std::size_t room = view_.config().max_timeslice_jobs;
    for (const auto& [tid, tg] : st_.groups) {
      if (tg.mode == Mode::kSlice && tg.type == t_ && tg.members.size() < room && !tg.grown &&
          !tg.converting && on_one_node(view_, tg.devices) && all_running(view_, tg))
        joinable_keys_.emplace_back(tg.cls, tg.devices.size(), tid);
    }
    std::sort(joinable_keys_.begin(), joinable_keys_.end());
    for (const auto& key : joinable_keys_)
      joinable_.push_back(std::get<2>(key));
    joinable_known_ = true;
  }
  auto first = std::lower_bound(joinable_keys_.begin(), joinable_keys_.end(),
                                std::make_tuple(cls, devices, std::uint32_t{0}));
  auto last = std::lower_bound(joinable_keys_.begin(), joinable_keys_.end(),
                               std::make_tuple(cls, devices + 1, std::uint32_t{0}));
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
          if (tg.members.size() + g.members.size() <= room &&
              view_.cluster().devices[tg.devices[0]].node != m) {
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
