// The network solver's cost per change (docs/network.md#cost): flows added and removed one at a
// time on a 1,000-node two-tier fabric (40 nodes of 8 GPUs per rack, 25 racks, 2:1 oversubscribed
// uplinks), each change followed by the incremental update the runtime does; and, for
// comparison, solving every flow from scratch.
#include "sim/cluster/cluster_yaml.h"
#include "sim/engine/rng.h"
#include "sim/network/network_model.h"

#include <benchmark/benchmark.h>
#include <yaml-cpp/yaml.h>

#include <memory>
#include <vector>

using namespace dlsim;

namespace {

const Cluster& fabric_cluster() {
  // 40 x 100 Gbit/s of NICs per rack under a 2000 Gbit/s uplink: 2:1, so the uplinks constrain.
  static const Cluster c =
      load_cluster(YAML::Load("fabric: {nodes_per_rack: 40, tor_uplink_gbit_s: 2000}\n"
                              "nodes:\n  - {count: 1000, devices: {V100: 8}}\n"),
                   "bench");
  return c;
}

// Random device pairs: half inside a rack, half across racks (uniform otherwise).
struct FlowMaker {
  Rng rng = Rng::stream(1, "bench.network.flows");
  std::pair<Router::Vertex, Router::Vertex> next(const NetworkModel& net) {
    const Cluster& c = net.router().cluster();
    auto a = static_cast<DeviceId>(rng.below(c.devices.size()));
    DeviceId b = a;
    while (b == a) {
      if (rng.uniform01() < 0.5) {
        // Same rack: racks are 40 consecutive nodes of 8 devices.
        DeviceId first = a / 320 * 320;
        b = first + static_cast<DeviceId>(rng.below(320));
      } else {
        b = static_cast<DeviceId>(rng.below(c.devices.size()));
      }
    }
    return {net.router().device_vertex(a), net.router().device_vertex(b)};
  }
};

// Steady state with `live` flows: each iteration removes a random flow and adds a new one, each
// change followed by an update (two changes per iteration; the reported time is per change).
void BM_ChangeOneFlow(benchmark::State& state) {
  NetworkModel net(fabric_cluster());
  FlowMaker maker;
  std::vector<NetworkModel::FlowId> flows;
  std::vector<std::uint32_t> changed;
  for (std::int64_t i = 0; i < state.range(0); ++i) {
    auto [a, b] = maker.next(net);
    flows.push_back(net.add_flow(a, b));
  }
  net.update(changed);
  std::size_t solved = 0;
  std::size_t updates = 0;
  for (auto _ : state) {
    std::size_t k = maker.rng.below(flows.size());
    net.remove_flow(flows[k]);
    changed.clear();
    net.update(changed);
    solved += net.solver().last_solved_flows();
    auto [a, b] = maker.next(net);
    flows[k] = net.add_flow(a, b);
    changed.clear();
    net.update(changed);
    solved += net.solver().last_solved_flows();
    updates += 2;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(updates));
  state.counters["s_per_change"] = benchmark::Counter(
      static_cast<double>(updates), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["flows_resolved_per_change"] =
      static_cast<double>(solved) / static_cast<double>(updates);
}
BENCHMARK(BM_ChangeOneFlow)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

// The same flows solved from scratch once: what every change would cost without components.
void BM_SolveAllFromScratch(benchmark::State& state) {
  NetworkModel net(fabric_cluster());
  FlowMaker maker;
  std::vector<std::uint32_t> changed;
  for (std::int64_t i = 0; i < state.range(0); ++i) {
    auto [a, b] = maker.next(net);
    net.add_flow(a, b);
  }
  net.update(changed);
  MaxMinSolver& solver = const_cast<MaxMinSolver&>(net.solver());
  for (auto _ : state)
    benchmark::DoNotOptimize(solver.solve_all().size());
}
BENCHMARK(BM_SolveAllFromScratch)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

// Jobs as the runtime adds them: 16-GPU ring all-reduce jobs on two nodes of one rack (the
// usual consolidated placement), `live` of them running; each iteration stops one and starts
// another elsewhere.
void BM_ChangeOneJob(benchmark::State& state) {
  const Cluster& c = fabric_cluster();
  NetworkModel net(c);
  Rng rng = Rng::stream(1, "bench.network.jobs");
  std::vector<std::vector<DeviceId>> devices;
  auto start = [&](std::uint32_t job) {
    NodeId n = static_cast<NodeId>(rng.below(c.nodes.size() - 1));
    std::vector<DeviceId> d;
    for (DeviceId k = 0; k < 16; ++k)
      d.push_back(c.nodes[n].first_device + k);
    devices[job] = d;
    JobTrafficRequest r;
    r.pattern = TrafficRequest{devices[job], 8, 0, false};
    r.model_bytes = 102.4e6;
    r.input_bytes = 4.8e6;
    r.compute_s = 0.128;
    net.add_job(job, r);
  };
  const auto live = static_cast<std::uint32_t>(state.range(0));
  devices.resize(live);
  std::vector<std::uint32_t> changed;
  for (std::uint32_t j = 0; j < live; ++j)
    start(j);
  net.update(changed);
  std::size_t updates = 0;
  for (auto _ : state) {
    auto j = static_cast<std::uint32_t>(rng.below(live));
    net.remove_job(j);
    changed.clear();
    net.update(changed);
    start(j);
    changed.clear();
    net.update(changed);
    updates += 2;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(updates));
  state.counters["s_per_change"] = benchmark::Counter(
      static_cast<double>(updates), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ChangeOneJob)->Arg(100)->Arg(400)->Unit(benchmark::kMicrosecond);

} // namespace
