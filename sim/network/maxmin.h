// Max-min fair bandwidth sharing among long-lived flows (progressive filling), recomputed only
// for the connected components of flows and resources that changed. docs/network.md explains
// the algorithm and its cost.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace dlsim {

// A set of resources (directed links) with capacities and a changing set of flows, each crossing
// some of the resources and optionally capped by its own demand. Rates are max-min fair:
// no flow can get more without taking from a flow that has no more than it.
//
// Progressive filling (Bertsekas & Gallager, "Data Networks", 2nd ed., sec. 6.5.2): raise every
// unfrozen flow's rate together; when a resource fills, or a flow reaches its cap, freeze the
// flows concerned at that level and go on with the others. Implemented with a min-heap of each
// resource's fair share (remaining capacity / unfrozen flows) and each capped flow's cap.
//
// Max-min allocations decompose over the connected components of the flow-resource graph, so a
// change (a flow added or removed) re-solves only the component(s) around it: update() finds
// them from the resources touched since the last call. Within a component the order of work is
// a fixed function of the component alone (heap keyed by (share, kind, id)), so an incremental
// update gives bit-identical rates to solve_all().
class MaxMinSolver {
public:
  using FlowId = std::uint32_t;
  using ResourceId = std::uint32_t;
  static constexpr double kUnlimited = std::numeric_limits<double>::infinity();

  MaxMinSolver() = default;
  explicit MaxMinSolver(std::vector<double> capacities);

  // A new flow over `resources` (each at most once), whose rate never exceeds `cap`. Its rate
  // is set by the next update(). A flow over no resource gets its cap (kUnlimited if none).
  FlowId add_flow(std::span<const ResourceId> resources, double cap = kUnlimited);
  void remove_flow(FlowId f);

  // Re-solves the components touched since the last call. Returns the live flows whose rate
  // changed, new flows included, in a deterministic order (valid until the next call).
  const std::vector<FlowId>& update();
  // Re-solves every component from scratch (for tests and the what-if tool).
  const std::vector<FlowId>& solve_all();
  [[nodiscard]] bool dirty() const { return !dirty_res_.empty() || !pending_.empty(); }

  [[nodiscard]] double rate(FlowId f) const { return rate_[f]; }
  [[nodiscard]] bool alive(FlowId f) const { return f < alive_.size() && alive_[f]; }
  [[nodiscard]] std::span<const ResourceId> route(FlowId f) const { return route_[f]; }
  [[nodiscard]] double cap(FlowId f) const { return cap_[f]; }
  [[nodiscard]] std::size_t flow_id_bound() const { return route_.size(); }
  [[nodiscard]] std::size_t flow_count() const { return live_; }
  [[nodiscard]] std::size_t resource_count() const { return capacity_.size(); }
  [[nodiscard]] double capacity(ResourceId r) const { return capacity_[r]; }
  [[nodiscard]] std::size_t flows_on(ResourceId r) const { return users_[r].size(); }
  // Sum of the rates of the flows on r (as of the last update).
  [[nodiscard]] double load(ResourceId r) const;
  // Size of the last update's work: flows and resources re-solved (for the benchmark).
  [[nodiscard]] std::size_t last_solved_flows() const { return solved_flows_; }

private:
  struct User {
    FlowId flow;
    std::uint32_t index; // position of this resource in the flow's route
  };
  struct HeapEntry {
    double share;
    std::uint32_t kind; // 0: a resource's fair share, 1: a flow's cap
    std::uint32_t id;
    bool operator>(const HeapEntry& o) const {
      if (share != o.share) return share > o.share;
      if (kind != o.kind) return kind > o.kind;
      return id > o.id;
    }
  };

  void mark_dirty(ResourceId r);
  void collect_component(ResourceId start);
  void solve_component();
  void freeze(FlowId f, double x);
  void push(const HeapEntry& e);
  HeapEntry pop();

  std::vector<double> capacity_;
  std::vector<std::vector<User>> users_; // per resource: the flows crossing it
  // Per flow id (ids of removed flows are reused).
  std::vector<std::vector<ResourceId>> route_;
  std::vector<std::vector<std::uint32_t>> slot_; // position of the flow in users_[route[i]]
  std::vector<double> cap_;
  std::vector<double> rate_;
  std::vector<std::uint8_t> alive_;
  std::vector<FlowId> free_ids_;
  std::size_t live_ = 0;

  // Changes since the last update.
  std::vector<ResourceId> dirty_res_;
  std::vector<std::uint8_t> res_dirty_;
  std::vector<FlowId> pending_; // new flows over no resource

  // Scratch for one update (kept to avoid reallocations).
  std::uint64_t epoch_ = 0;
  std::vector<std::uint64_t> res_seen_;
  std::vector<std::uint64_t> flow_seen_;
  std::vector<ResourceId> comp_res_;
  std::vector<FlowId> comp_flows_;
  std::vector<double> rem_;          // per resource: capacity left
  std::vector<std::uint32_t> left_;  // per resource: unfrozen flows
  std::vector<std::uint8_t> frozen_; // per flow
  std::vector<double> next_rate_;    // per flow
  std::vector<HeapEntry> heap_;
  std::vector<FlowId> changed_;
  std::size_t solved_flows_ = 0;
};

} // namespace dlsim
