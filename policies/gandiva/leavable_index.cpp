// The plans' per-node bounds kept from plan to plan (leavable_index.h).
#include "policies/gandiva/leavable_index.h"

#include "policies/gandiva/affinity.h"

#include <algorithm>

namespace dlsim::gandiva {

void LeavableIndex::set_free(OfType& of, NodeId n, std::uint32_t k) {
  std::uint32_t& was = of.free[n];
  --of.count[was];
  of.id_sum[was] -= n;
  was = k;
  if (of.count.size() <= k) {
    of.count.resize(k + 1, 0);
    of.id_sum.resize(k + 1, 0);
  }
  ++of.count[k];
  of.id_sum[k] += n;
}

void LeavableIndex::find_most(OfType& of) {
  // As the plan read them from its walk over the nodes with free devices: the most, and the most
  // on another node than the (first) node with the most. Nodes with none count as 0.
  std::uint32_t k = static_cast<std::uint32_t>(of.count.size());
  while (k > 1 && of.count[k - 1] == 0)
    --k;
  of.most = k > 1 ? k - 1 : 0;
  of.single = of.most > 0 && of.count[of.most] == 1;
  of.most_node = of.single ? static_cast<NodeId>(of.id_sum[of.most]) : 0;
  of.second = of.most;
  if (of.single) {
    std::uint32_t s = of.most;
    while (s > 1 && of.count[s - 1] == 0)
      --s;
    of.second = s > 1 ? s - 1 : 0;
  }
}

void LeavableIndex::compute(const View& view, const State& st, DeviceTypeId t, OfType& of,
                            NodeId n) {
  // Where a group on n could go with nothing claimed: free devices on the node with the most
  // (on n itself only when another node has as many), or a joinable group of its class and size
  // on another node with room for its members (PlanIndex::leavable_on).
  const std::uint32_t elsewhere = of.single && n == of.most_node ? of.second : of.most;
  const std::size_t room = view.config().max_timeslice_jobs;
  std::uint32_t alone = 0;
  std::uint32_t merged = 0;
  for (const MovableIndex::OnNode& g : st.movable_index.on_node(t, n)) {
    if (elsewhere >= g.devices) {
      alone += g.devices;
      merged += g.devices;
      continue;
    }
    if (!g.slice) continue;
    auto it = of.joins.find({g.cls, g.devices});
    if (it == of.joins.end()) continue;
    const Joins& j = it->second;
    const std::optional<Target>& to = j.first && j.first->node != n ? j.first : j.second;
    if (to && to->members + g.members <= room) merged += g.devices;
  }
  of.alone[n] = alone;
  of.merged[n] = merged;
  if (of.free[n] + merged > 0) {
    of.some.insert(n);
  } else {
    of.some.erase(n);
  }
}

void LeavableIndex::mark_dirty(NodeId n) {
  if (in_dirty_[n]) return;
  in_dirty_[n] = 1;
  dirty_.push_back(n);
}

void LeavableIndex::recount_all(const View& view, const State& st, DeviceTypeId t, OfType& of) {
  const std::size_t nodes = view.cluster().nodes.size();
  of.free.assign(nodes, 0);
  of.alone.assign(nodes, 0);
  of.merged.assign(nodes, 0);
  of.count.assign(1, static_cast<std::uint32_t>(nodes));
  std::uint64_t ids = 0;
  for (NodeId n = 0; n < nodes; ++n)
    ids += n;
  of.id_sum.assign(1, ids);
  of.some.clear();
  of.joins.clear();
  for (NodeId n : dirty_)
    in_dirty_[n] = 0;
  dirty_.clear();
  for (NodeId n = 0; n < nodes; ++n) {
    set_free(of, n, free_count(view, st, n, t));
    mark_dirty(n);
  }
  find_most(of);
}

void LeavableIndex::recount_dirty(const View& view, const State& st, DeviceTypeId t, OfType& of) {
  const std::uint32_t most = of.most;
  const bool single = of.single;
  const NodeId most_node = of.most_node;
  const std::uint32_t second = of.second;
  for (NodeId n : dirty_)
    set_free(of, n, free_count(view, st, n, t));
  find_most(of);
  if (of.most != most) {
    // Every node's groups may go elsewhere, or no longer.
    const std::size_t nodes = view.cluster().nodes.size();
    for (NodeId n = 0; n < nodes; ++n)
      mark_dirty(n);
  } else if (of.single != single || of.most_node != most_node || of.second != second) {
    // Only the node with the most reads another node's count than the most.
    if (single) mark_dirty(most_node);
    if (of.single) mark_dirty(of.most_node);
  }
}

void LeavableIndex::refresh_joins(const State& st, DeviceTypeId t, OfType& of, bool all) {
  // The joinable groups each class and size could join, and the nodes whose groups read them
  // differently now. A group that is not joinable itself is full (members ==
  // runtime.max_timeslice_jobs) or not time-sliced and joins nobody; a joinable group whose
  // entry changed marked its node already.
  st.movable_index.joinable_classes(t, classes_);
  std::map<std::pair<std::uint32_t, std::uint32_t>, Joins> joins;
  for (const auto& [cls, devices] : classes_) {
    Joins& j = joins[{cls, devices}];
    for (const MovableIndex::Joinable& e : st.movable_index.joinable(t, cls, devices)) {
      if (!j.first) {
        j.first = Target{e.members, e.node};
      } else if (e.node != j.first->node) {
        j.second = Target{e.members, e.node};
        break;
      }
    }
  }
  if (!all) {
    for (const auto& [key, now] : joins) {
      auto it = of.joins.find(key);
      const Joins was = it == of.joins.end() ? Joins{} : it->second;
      if (was == now) continue;
      const bool first_same = was.first.has_value() == now.first.has_value() &&
                              (!now.first || was.first->members == now.first->members);
      if (first_same) {
        // Only the groups on the first one's node (old and new) read the second.
        if (was.first) mark_dirty(was.first->node);
        if (now.first) mark_dirty(now.first->node);
        continue;
      }
      for (const MovableIndex::Joinable& e : st.movable_index.joinable(t, key.first, key.second))
        mark_dirty(e.node);
    }
    // A class and size with no joinable group left: the groups that were had their entries
    // changed, and marked their nodes.
  }
  of.joins = std::move(joins);
}

void LeavableIndex::refresh(const View& view, const State& st, DeviceTypeId t) {
  const std::size_t nodes = view.cluster().nodes.size();
  if (types_.size() <= t) types_.resize(t + 1);
  OfType& of = types_[t];
  const ChangeLog& log = view.changes().nodes;
  if (in_dirty_.size() != nodes) in_dirty_.assign(nodes, 0);
  dirty_.clear();
  auto dirty = [&](NodeId n) { mark_dirty(n); };
  bool all = !of.known;
  if (!all) {
    // Nodes whose free devices changed (the runtime's log) or whose reservations or movable
    // groups did (marks_).
    all = !log.for_each_since(of.runtime_stamp, dirty) ||
          !marks_.for_each_since(of.marks_stamp, dirty);
  }
  if (all) {
    recount_all(view, st, t, of);
  } else {
    recount_dirty(view, st, t, of);
  }
  refresh_joins(st, t, of, all);
  for (NodeId n : dirty_) {
    compute(view, st, t, of, n);
    in_dirty_[n] = 0;
  }
  dirty_.clear();
  of.known = true;
  of.runtime_stamp = log.stamp();
  of.marks_stamp = marks_.stamp();
}

std::size_t LeavableIndex::leavable(DeviceTypeId t, bool merge, NodeId n) const {
  const OfType& of = types_.at(t);
  return merge ? of.merged[n] : of.alone[n];
}

void LeavableIndex::nodes_reaching(DeviceTypeId t, bool merge, std::size_t least,
                                   std::vector<NodeId>& out) const {
  out.clear();
  const OfType& of = types_.at(t);
  for (NodeId n : of.some) {
    if (of.free[n] + (merge ? of.merged[n] : of.alone[n]) >= least) out.push_back(n);
  }
}

} // namespace dlsim::gandiva
