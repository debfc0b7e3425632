// At most how many devices a defragmentation plan could free on each node (its free devices of
// the plan's type, plus the devices of its movable groups that have somewhere to go:
// PlanIndex::leavable_on), kept from plan to plan. Under a standing queue a plan is made at almost
// every decision and almost no node can free anything; walking every movable group to find that
// out was most of a plan. Between two plans a node's bound changes only when its free devices or
// its movable groups changed, or what its groups could move to: the node with the most free
// devices (the second one, for that node itself), and per class and size the least-loaded
// joinable group (the first on another node, for the node holding it). Only those nodes are
// computed again.
#pragma once

#include "policies/gandiva/movable_index.h"
#include "sim/runtime/change_log.h"
#include "sim/runtime/view.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace dlsim::gandiva {

class State;

class LeavableIndex {
public:
  // For a cluster of `nodes` nodes (State::ensure_sizes): forgets every bound.
  void init(std::size_t nodes) {
    marks_.init(nodes);
    types_.clear();
  }
  // Node n's reservations or movable groups changed (State::reserve and unreserve,
  // refresh_movable_index).
  void mark(NodeId n) { marks_.mark(n); }
  // Brings the bounds of type t up to date; st.movable_index must be (refresh_movable_index).
  void refresh(const View& view, const State& st, DeviceTypeId t);
  // PlanIndex::leavable_on(n) for a plan of type t, moved groups allowed to join time-sliced
  // groups or not, as of the last refresh of t.
  [[nodiscard]] std::size_t leavable(DeviceTypeId t, bool merge, NodeId n) const;
  // In id order, the nodes whose free devices of type t (free_count) plus leavable(t, merge, n)
  // are at least `least`, as of the last refresh of t.
  void nodes_reaching(DeviceTypeId t, bool merge, std::size_t least,
                      std::vector<NodeId>& out) const;

private:
  // A joinable group a moved group of its class and size could join: its members and node.
  struct Target {
    std::uint32_t members = 0;
    NodeId node = 0;
    bool operator==(const Target&) const = default;
  };
  // Per (class, devices): the least-loaded joinable group (fewest members, then id), and the
  // first one on another node than it. A group on node m could join the first unless it is on m,
  // then the second; a later one has no more room than these.
  struct Joins {
    std::optional<Target> first, second;
    bool operator==(const Joins&) const = default;
  };
  struct OfType {
    bool known = false;
    std::uint64_t runtime_stamp = 0;          // the runtime's node log at the last refresh
    std::uint64_t marks_stamp = 0;            // marks_ at the last refresh
    std::vector<std::uint32_t> free;          // [node] free_count
    std::vector<std::uint32_t> alone, merged; // [node] leavable without and with merging
    std::vector<std::uint32_t> count;         // [k] nodes with k free devices
    std::vector<std::uint64_t> id_sum;        // [k] the sum of their ids
    // The most free devices on a node; whether one node alone has that many, which one, and then
    // the most on another node (a group on it can go only there).
    std::uint32_t most = 0;
    bool single = false;
    NodeId most_node = 0;
    std::uint32_t second = 0;
    std::map<std::pair<std::uint32_t, std::uint32_t>, Joins> joins;
    std::set<NodeId> some; // nodes with free + merged > 0
  };
  void set_free(OfType& of, NodeId n, std::uint32_t k);
  static void find_most(OfType& of);
  void compute(const View& view, const State& st, DeviceTypeId t, OfType& of, NodeId n);
  // refresh's steps: the node n is to be computed again; every node's free devices counted
  // afresh (nothing known, or the logs ran out); the dirty nodes' counted again, marking the
  // nodes whose groups read the new most; the joinable groups read again, marking the nodes
  // whose groups read them differently.
  void mark_dirty(NodeId n);
  void recount_all(const View& view, const State& st, DeviceTypeId t, OfType& of);
  void recount_dirty(const View& view, const State& st, DeviceTypeId t, OfType& of);
  void refresh_joins(const State& st, DeviceTypeId t, OfType& of, bool all);
  ChangeLog marks_;
  std::vector<OfType> types_; // [type]
  std::vector<NodeId> dirty_; // refresh's scratch
  std::vector<char> in_dirty_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> classes_;
};

} // namespace dlsim::gandiva
