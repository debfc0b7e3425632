// The defragmentation plan's indexes (plan_index.h).
#include "policies/gandiva/plan_index.h"

#include "policies/gandiva/affinity.h"

#include <algorithm>
#include <iterator>
#include <optional>

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
  for (NodeId m = 0; m < nodes.size(); ++m) {
    // Read from the index alone: it holds each group's members, devices, class and mode.
    for (const MovableIndex::OnNode& g : movable_on(m)) {
      bool may_leave = (m == most_node ? second : most) >= g.devices;
      if (!may_leave && merge_ && g.slice) may_leave = may_join_elsewhere(g, m);
      if (may_leave) leavable_[m] += g.devices;
    }
  }
  return leavable_[n];
}

bool PlanIndex::may_join_elsewhere(const MovableIndex::OnNode& g, NodeId m) {
  // The joinable groups of g's class and size by fewest members: the first on another node than
  // m is the least-loaded one g could join, and if it has no room for g's members, neither has any
  // later one. It is the first of them, or, when that one is on m, the first on another node than
  // the first's: two entries per (class, size), found once per plan.
  auto [it, fresh] = first_two_.try_emplace({g.cls, g.devices});
  if (fresh) {
    const auto all = joinable(g.cls, g.devices);
    for (const MovableIndex::Joinable& e : all) {
      if (!it->second.first) {
        it->second.first = e;
      } else if (e.node != it->second.first->node) {
        it->second.second = e;
        break;
      }
    }
  }
  const auto& [first, second] = it->second;
  const std::optional<MovableIndex::Joinable>& to = first && first->node != m ? first : second;
  return to && to->members + g.members <= view_.config().max_timeslice_jobs;
}

} // namespace dlsim::gandiva

namespace dlsim::gandiva {

namespace {

// The index's key of a group movable now.
MovableKey key_of(const View& view, const Group& g) {
  const auto members = static_cast<std::uint32_t>(g.members.size());
  const bool slice = g.mode == Mode::kSlice;
  const bool joinable = slice && members < view.config().max_timeslice_jobs;
  return {g.type,  view.cluster().devices[g.devices[0]].node,
          members, static_cast<std::uint32_t>(g.devices.size()),
          g.cls,   slice,
          joinable};
}

} // namespace

void refresh_movable_index(const View& view, State& st, const std::vector<std::uint32_t>& movable) {
  std::vector<std::uint32_t>& changed = st.take_index_groups(view);
  // The groups that started or stopped being movable (either list is in id order).
  std::vector<std::uint32_t>& was = st.index_movable;
  std::set_symmetric_difference(was.begin(), was.end(), movable.begin(), movable.end(),
                                std::back_inserter(changed));
  for (std::uint32_t gid : changed) {
    const bool now = std::binary_search(movable.begin(), movable.end(), gid);
    st.movable_index.set(gid, now ? std::optional(key_of(view, st.groups.at(gid))) : std::nullopt);
  }
  was = movable;
}

} // namespace dlsim::gandiva
