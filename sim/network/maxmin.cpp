// Max-min fair sharing by progressive filling over the changed connected components.
#include "sim/network/maxmin.h"

#include <algorithm>
#include <functional>
#include <utility>

namespace dlsim {

MaxMinSolver::MaxMinSolver(std::vector<double> capacities)
    : capacity_(std::move(capacities)), users_(capacity_.size()), res_dirty_(capacity_.size(), 0),
      res_seen_(capacity_.size(), 0), rem_(capacity_.size(), 0), left_(capacity_.size(), 0) {}

MaxMinSolver::FlowId MaxMinSolver::add_flow(std::span<const ResourceId> resources, double cap) {
  FlowId f;
  if (!free_ids_.empty()) {
    f = free_ids_.back();
    free_ids_.pop_back();
  } else {
    f = static_cast<FlowId>(route_.size());
    route_.emplace_back();
    slot_.emplace_back();
    cap_.push_back(0);
    rate_.push_back(0);
    alive_.push_back(0);
    flow_seen_.push_back(0);
    frozen_.push_back(0);
    next_rate_.push_back(0);
  }
  route_[f].assign(resources.begin(), resources.end());
  slot_[f].resize(resources.size());
  for (std::uint32_t i = 0; i < resources.size(); ++i) {
    ResourceId r = resources[i];
    slot_[f][i] = static_cast<std::uint32_t>(users_[r].size());
    users_[r].push_back(User{f, i});
    mark_dirty(r);
  }
  cap_[f] = cap;
  // Not a number: the first solve always reports the new flow as changed.
  rate_[f] = std::numeric_limits<double>::quiet_NaN();
  alive_[f] = 1;
  ++live_;
  if (resources.empty()) pending_.push_back(f);
  return f;
}

void MaxMinSolver::remove_flow(FlowId f) {
  auto& route = route_[f];
  for (std::uint32_t i = 0; i < route.size(); ++i) {
    ResourceId r = route[i];
    auto& users = users_[r];
    std::uint32_t p = slot_[f][i];
    User moved = users.back();
    users[p] = moved;
    slot_[moved.flow][moved.index] = p;
    users.pop_back();
    mark_dirty(r);
  }
  route.clear();
  slot_[f].clear();
  alive_[f] = 0;
  rate_[f] = 0;
  --live_;
  free_ids_.push_back(f);
}

void MaxMinSolver::mark_dirty(ResourceId r) {
  if (res_dirty_[r]) return;
  res_dirty_[r] = 1;
  dirty_res_.push_back(r);
}

double MaxMinSolver::load(ResourceId r) const {
  double sum = 0;
  for (const User& u : users_[r])
    sum += rate_[u.flow];
  return sum;
}

const std::vector<MaxMinSolver::FlowId>& MaxMinSolver::update() {
  changed_.clear();
  solved_flows_ = 0;
  ++epoch_;
  for (ResourceId r : dirty_res_) {
    res_dirty_[r] = 0;
    if (res_seen_[r] == epoch_) continue;
    collect_component(r);
    if (comp_flows_.empty()) continue;
    solved_flows_ += comp_flows_.size();
    solve_component();
  }
  dirty_res_.clear();
  for (FlowId f : pending_) {
    if (!alive_[f] || !route_[f].empty()) continue;
    rate_[f] = cap_[f];
    changed_.push_back(f);
  }
  pending_.clear();
  return changed_;
}

const std::vector<MaxMinSolver::FlowId>& MaxMinSolver::solve_all() {
  for (ResourceId r = 0; r < users_.size(); ++r) {
    if (!users_[r].empty()) mark_dirty(r);
  }
  return update();
}

// Breadth-first over the flow-resource graph from `start`: every resource and flow connected
// to it. The order is deterministic (users_ lists and routes are ordered vectors).
void MaxMinSolver::collect_component(ResourceId start) {
  comp_res_.clear();
  comp_flows_.clear();
  res_seen_[start] = epoch_;
  comp_res_.push_back(start);
  for (std::size_t i = 0; i < comp_res_.size(); ++i) {
    for (const User& u : users_[comp_res_[i]]) {
      if (flow_seen_[u.flow] == epoch_) continue;
      flow_seen_[u.flow] = epoch_;
      comp_flows_.push_back(u.flow);
      for (ResourceId r : route_[u.flow]) {
        if (res_seen_[r] == epoch_) continue;
        res_seen_[r] = epoch_;
        comp_res_.push_back(r);
      }
    }
  }
}

void MaxMinSolver::push(const HeapEntry& e) {
  heap_.push_back(e);
  std::push_heap(heap_.begin(), heap_.end(), std::greater<HeapEntry>());
}

MaxMinSolver::HeapEntry MaxMinSolver::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), std::greater<HeapEntry>());
  HeapEntry e = heap_.back();
  heap_.pop_back();
  return e;
}

void MaxMinSolver::freeze(FlowId f, double x) {
  frozen_[f] = 1;
  next_rate_[f] = x;
  for (ResourceId r : route_[f]) {
    rem_[r] -= x;
    if (--left_[r] > 0) push(HeapEntry{rem_[r] / left_[r], 0, r});
  }
}

// Progressive filling on the collected component. The heap holds each resource's fair share
// (remaining capacity / unfrozen flows) and each capped flow's cap; entries made stale by later
// freezes are skipped when popped (their share no longer matches). The popped keys never
// decrease; `level` guards that against rounding, so no rate is ever below an earlier one.
void MaxMinSolver::solve_component() {
  heap_.clear();
  for (ResourceId r : comp_res_) {
    rem_[r] = capacity_[r];
    left_[r] = static_cast<std::uint32_t>(users_[r].size());
    if (left_[r] > 0) push(HeapEntry{rem_[r] / left_[r], 0, r});
  }
  for (FlowId f : comp_flows_) {
    frozen_[f] = 0;
    if (cap_[f] != kUnlimited) push(HeapEntry{cap_[f], 1, f});
  }
  double level = 0;
  while (!heap_.empty()) {
    HeapEntry e = pop();
    if (e.kind == 0) {
      ResourceId r = e.id;
      if (left_[r] == 0) continue;
      double share = rem_[r] / left_[r];
      if (share != e.share) continue; // stale
      level = std::max(level, share);
      for (const User& u : users_[r]) {
        if (!frozen_[u.flow]) freeze(u.flow, level);
      }
    } else {
      FlowId f = e.id;
      if (frozen_[f]) continue;
      level = std::max(level, e.share);
      freeze(f, level);
    }
  }
  for (FlowId f : comp_flows_) {
    if (!(next_rate_[f] == rate_[f])) {
      rate_[f] = next_rate_[f];
      changed_.push_back(f);
    }
  }
}

} // namespace dlsim
