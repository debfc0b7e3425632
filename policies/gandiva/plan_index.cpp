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

std::vector<NodeId> PlanIndex::nodes_reaching(std::size_t least) const {
  std::vector<NodeId> out;
  st_.leavable_index.nodes_reaching(t_, merge_, least, out);
  return out;
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
    // The nodes it leaves and lands on in the index: their plans' bounds may change.
    if (const std::optional<MovableKey> old = st.movable_index.key(gid))
      st.leavable_index.mark(old->node);
    const std::optional<MovableKey> key =
        now ? std::optional(key_of(view, st.groups.at(gid))) : std::nullopt;
    if (key) st.leavable_index.mark(key->node);
    st.movable_index.set(gid, key);
  }
  was = movable;
}

} // namespace dlsim::gandiva
