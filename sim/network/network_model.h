// The network model of a run: routes, the max-min fair solver over every directed link, and the
// flows each running distributed job holds. The runtime adds a job's flows when it starts
// running and removes them when it stops; update() re-solves what changed and names the jobs
// whose bandwidth moved. docs/network.md.
#pragma once

#include "sim/network/maxmin.h"
#include "sim/network/router.h"
#include "sim/network/traffic.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace dlsim {

struct JobTrafficRequest {
  TrafficRequest pattern;
  double model_bytes = 0; // gradient (and parameter) bytes exchanged per iteration
  double input_bytes = 0; // input bytes per device per iteration (0: no input flows)
  double compute_s = 0;   // uncontended compute per iteration: input flows need no more than
                          // input_bytes / compute_s
};

// Per iteration, at the rates of the last update().
struct CommTimes {
  double comm_s = 0;  // gradient exchange, latency included
  double input_s = 0; // input loading
};

class NetworkModel {
public:
  using FlowId = MaxMinSolver::FlowId;
  using ResourceId = MaxMinSolver::ResourceId;
  using Vertex = Router::Vertex;
  static constexpr std::uint32_t kNoOwner = 0xffffffffu;

  explicit NetworkModel(const Cluster& cluster);

  [[nodiscard]] const Router& router() const { return router_; }
  [[nodiscard]] const MaxMinSolver& solver() const { return solver_; }
  // False for links that can never limit a flow, which the solver leaves out: a rack uplink
  // with at least the summed bandwidth of the rack's NICs (every flow on it also crosses one
  // of those NICs, so its constraint is implied). Same rates, smaller components.
  [[nodiscard]] bool constrains(std::uint32_t link) const { return !elided_[link]; }
  // The resources (directed links) of a route the solver constrains, and its latency.
  void resources_of(const std::vector<Hop>& hops, std::vector<ResourceId>& out) const;
  [[nodiscard]] double latency_us(const std::vector<Hop>& hops) const;

  // A single flow from src to dst, its rate at most cap_gb_s (GB/s).
  FlowId add_flow(Vertex src, Vertex dst, double cap_gb_s = MaxMinSolver::kUnlimited,
                  std::uint32_t owner = kNoOwner);
  void remove_flow(FlowId f);
  [[nodiscard]] double rate_gb_s(FlowId f) const { return solver_.rate(f); }
  [[nodiscard]] std::pair<Vertex, Vertex> flow_ends(FlowId f) const { return ends_[f]; }

  // A job's flows (pattern_flows) while it runs. A job with no flow is not recorded.
  void add_job(std::uint32_t job, const JobTrafficRequest& request);
  void remove_job(std::uint32_t job);
  [[nodiscard]] bool has_job(std::uint32_t job) const { return jobs_.count(job) != 0; }
  [[nodiscard]] CommTimes times(std::uint32_t job) const;
  [[nodiscard]] const std::vector<FlowId>* job_flows(std::uint32_t job) const;

  [[nodiscard]] bool dirty() const { return solver_.dirty(); }
  // Re-solves what changed since the last call; appends the owners of flows whose rate changed
  // (a job may appear more than once).
  void update(std::vector<std::uint32_t>& changed_owners);

private:
  struct JobFlows {
    std::vector<FlowId> flows;
    std::vector<FlowRole> roles;
    double bytes_per_flow = 0; // gradient bytes per flow per iteration
    double latency_s = 0;      // latency paid per iteration
    double input_bytes = 0;
    bool ps = false;
  };

  Router router_;
  MaxMinSolver solver_;
  std::vector<std::uint8_t> elided_;                 // per link
  std::vector<std::uint32_t> owner_;                 // per flow id
  std::vector<std::pair<Vertex, Vertex>> ends_;      // per flow id: source, destination
  std::unordered_map<std::uint32_t, JobFlows> jobs_; // looked up only, never iterated
  // Scratch.
  std::vector<PatternFlow> pattern_;
  std::vector<Hop> hops_;
  std::vector<ResourceId> resources_;
};

} // namespace dlsim
