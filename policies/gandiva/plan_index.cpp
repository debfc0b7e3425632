// The defragmentation plan's indexes (plan_index.h).
#include "policies/gandiva/plan_index.h"

#include "policies/gandiva/affinity.h"

#include <algorithm>
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

Usage usage_of(const View& view, const Group& g) {
  Usage u;
  for (JobId m : g.members) {
    const JobRequest& r = view.request(m);
    const RequestDetails& rd = view.details(m);
    const std::size_t whole_workers = g.devices.size() / r.devices_per_worker;
    const auto workers = static_cast<double>(whole_workers);
    u.cpu += workers * rd.cpus_per_worker;
    u.mem += workers * rd.mem_gb_per_worker;
  }
  return u;
}

namespace {

// The index's key of a group movable now.
MovableKey key_of(const View& view, const Group& g) {
  const auto members = static_cast<std::uint32_t>(g.members.size());
  const bool slice = g.mode == Mode::kSlice;
  const bool joinable = slice && members < view.config().max_timeslice_jobs;
  return {g.type,   view.cluster().devices[g.devices[0]].node,
          members,  static_cast<std::uint32_t>(g.devices.size()),
          g.cls,    slice,
          joinable, usage_of(view, g)};
}

} // namespace

void refresh_movable_index(const View& view, State& st) {
  // A group starts or stops being movable, or changes its key, only after a touch, set_devices or
  // a member's job log mark (movable, defrag.cpp): the marked groups are the only ones whose
  // entry can differ, erased ones included.
  for (std::uint32_t gid : st.take_index_groups(view)) {
    const Group* g = st.groups.find_live(gid);
    const std::optional<MovableKey> key =
        g != nullptr && movable(view, st.opt, *g) ? std::optional(key_of(view, *g)) : std::nullopt;
    const std::optional<MovableKey> old = st.movable_index.key(gid);
    if (!old && !key) continue;
    // The nodes it leaves and lands on in the index: their plans' bounds may change.
    if (old) st.leavable_index.mark(old->node);
    if (key) st.leavable_index.mark(key->node);
    st.movable_index.set(gid, key);
  }
}

} // namespace dlsim::gandiva
