// Flows of running jobs on the max-min solver, and the communication time they give.
#include "sim/network/network_model.h"

#include <algorithm>
#include <limits>

namespace dlsim {

namespace {

std::vector<double> directed_capacities(const Topology& topo) {
  std::vector<double> caps(2 * topo.link_count());
  for (std::uint32_t l = 0; l < topo.link_count(); ++l) {
    caps[2 * l] = topo.link(l).gb_s;
    caps[2 * l + 1] = topo.link(l).gb_s;
  }
  return caps;
}

} // namespace

NetworkModel::NetworkModel(const Cluster& cluster)
    : router_(cluster), solver_(directed_capacities(cluster.topology)),
      elided_(cluster.topology.link_count(), 0) {
  const Topology& topo = cluster.topology;
  const TopoGraph& g = topo.graph();
  // Summed NIC bandwidth below each ToR, then compare with its uplink.
  std::vector<double> nic_sum(cluster.rack_count, 0.0);
  for (std::uint32_t l = 0; l < topo.link_count(); ++l) {
    if (topo.link(l).kind != LinkKind::kNic) continue;
    auto [a, b] = router_.ends(l);
    Vertex tor = g[a].kind == VertexKind::kTor ? a : b;
    nic_sum[g[tor].index] += topo.link(l).gb_s;
  }
  for (std::uint32_t l = 0; l < topo.link_count(); ++l) {
    if (topo.link(l).kind != LinkKind::kRackUplink) continue;
    auto [a, b] = router_.ends(l);
    Vertex tor = g[a].kind == VertexKind::kTor ? a : b;
    elided_[l] = topo.link(l).gb_s >= nic_sum[g[tor].index] ? 1 : 0;
  }
}

void NetworkModel::resources_of(const std::vector<Hop>& hops, std::vector<ResourceId>& out) const {
  for (const Hop& h : hops) {
    if (!elided_[h.link]) out.push_back(h.resource());
  }
}

double NetworkModel::latency_us(const std::vector<Hop>& hops) const {
  double sum = 0;
  for (const Hop& h : hops)
    sum += router_.cluster().topology.link(h.link).latency_us;
  return sum;
}

NetworkModel::FlowId NetworkModel::add_flow(Vertex src, Vertex dst, double cap_gb_s,
                                            std::uint32_t owner) {
  hops_.clear();
  router_.route(src, dst, hops_);
  resources_.clear();
  resources_of(hops_, resources_);
  FlowId f = solver_.add_flow(resources_, cap_gb_s);
  if (owner_.size() <= f) {
    owner_.resize(f + 1, kNoOwner);
    ends_.resize(f + 1);
  }
  owner_[f] = owner;
  ends_[f] = {src, dst};
  return f;
}

void NetworkModel::remove_flow(FlowId f) {
  solver_.remove_flow(f);
  owner_[f] = kNoOwner;
}

void NetworkModel::add_job(std::uint32_t job, const JobTrafficRequest& r) {
  TrafficRequest pattern = r.pattern;
  pattern.input = r.input_bytes > 0;
  pattern_.clear();
  pattern_flows(router_, pattern, pattern_);
  if (pattern_.empty()) return;
  JobFlows& jf = jobs_[job];
  const std::size_t n = pattern.devices.size();
  jf.ps = pattern.ps > 0;
  jf.bytes_per_flow = n < 2   ? 0.0 // a single device: input flows only
                      : jf.ps ? ps_bytes_per_flow(r.model_bytes, pattern.ps)
                              : ring_bytes_per_flow(r.model_bytes, n);
  jf.input_bytes = r.input_bytes;
  // An input flow needs no more than one iteration's input per iteration of compute.
  const double input_cap =
      r.compute_s > 0 ? r.input_bytes / r.compute_s / 1e9 : MaxMinSolver::kUnlimited;
  double worst_latency_us = 0;
  for (const PatternFlow& p : pattern_) {
    bool input = p.role == FlowRole::kInput;
    FlowId f = add_flow(p.src, p.dst, input ? input_cap : MaxMinSolver::kUnlimited, job);
    if (!input) worst_latency_us = std::max(worst_latency_us, latency_us(hops_)); // its route
    jf.flows.push_back(f);
    jf.roles.push_back(p.role);
  }
  jf.latency_s = n < 2 ? 0.0 : latency_steps(n, pattern.ps) * worst_latency_us * 1e-6;
}

void NetworkModel::remove_job(std::uint32_t job) {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) return;
  for (FlowId f : it->second.flows)
    remove_flow(f);
  jobs_.erase(it);
}

const std::vector<NetworkModel::FlowId>* NetworkModel::job_flows(std::uint32_t job) const {
  auto it = jobs_.find(job);
  return it == jobs_.end() ? nullptr : &it->second.flows;
}

// Each phase lasts as long as its slowest flow needs for its bytes: ring all-reduce is one phase
// (every replica sends at once), the parameter server a push phase then a pull phase.
CommTimes NetworkModel::times(std::uint32_t job) const {
  CommTimes t;
  auto it = jobs_.find(job);
  if (it == jobs_.end()) return t;
  const JobFlows& jf = it->second;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double slowest[4] = {kInf, kInf, kInf, kInf}; // by FlowRole
  bool present[4] = {false, false, false, false};
  // Input flows that all get their cap deliver one iteration's input per iteration of compute:
  // prefetching hides them entirely. Only a starved input flow can set the pace (and then
  // bytes / rate is computed, never a rounded-up copy of the compute time).
  bool input_starved = false;
  for (std::size_t i = 0; i < jf.flows.size(); ++i) {
    auto role = static_cast<std::size_t>(jf.roles[i]);
    double rate = solver_.rate(jf.flows[i]);
    slowest[role] = std::min(slowest[role], rate);
    present[role] = true;
    if (jf.roles[i] == FlowRole::kInput && rate < solver_.cap(jf.flows[i])) input_starved = true;
  }
  auto phase = [&](FlowRole role, double bytes) {
    auto k = static_cast<std::size_t>(role);
    return present[k] ? bytes / (slowest[k] * 1e9) : 0.0;
  };
  t.comm_s = phase(FlowRole::kRing, jf.bytes_per_flow) + phase(FlowRole::kPush, jf.bytes_per_flow) +
             phase(FlowRole::kPull, jf.bytes_per_flow) + jf.latency_s;
  t.input_s = input_starved ? phase(FlowRole::kInput, jf.input_bytes) : 0.0;
  return t;
}

void NetworkModel::update(std::vector<std::uint32_t>& changed_owners) {
  for (FlowId f : solver_.update()) {
    if (owner_[f] != kNoOwner) changed_owners.push_back(owner_[f]);
  }
}

} // namespace dlsim
