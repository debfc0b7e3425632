// The network model (docs/network.md): the max-min solver by hand, routes, communication
// patterns, jobs slowed by contention end to end, topology-aware placement, incremental versus
// from-scratch solving, and `dlsim net-solve`. Every expected number is worked out in a comment.
#include "policies/placement.h"
#include "sim/engine/rng.h"
#include "sim/network/iteration_time.h"
#include "sim/network/network_model.h"
#include "tests/support/scripted_run.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>
#include <sys/wait.h>

using namespace dlsim;
using namespace dlsim::test;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<MaxMinSolver::ResourceId> res(std::initializer_list<MaxMinSolver::ResourceId> r) {
  return r;
}

// Defaults used below (docs/cluster.md): PCIe gen3 x16 = 0.985 x 16 = 15.76 GB/s, 4 devices per
// switch, 2 sockets (switch k on socket k mod 2), NIC 100 Gbit/s = 12.5 GB/s, 1 us per PCIe and
// network hop, 0.1 us per socket link, 0.5 us per NVLink.
constexpr const char* kTwoNodes8 = "nodes:\n  - {count: 2, devices: {V100: 8}}\n";
constexpr const char* kTwoNodes4 = "nodes:\n  - {count: 2, devices: {V100: 4}}\n";
// 4 nodes in 2 racks; each rack's uplink 100 Gbit/s = 12.5 GB/s for 2 x 12.5 GB/s of NICs (2:1).
constexpr const char* kTwoRacks = "fabric: {nodes_per_rack: 2, tor_uplink_gbit_s: 100}\n"
                                  "nodes:\n  - {count: 4, devices: {V100: 4}}\n";

// The scripted run with the network model on.
struct Scripted : ScriptedRun {
  Scripted(const std::string& cluster_yaml, const std::string& csv,
           std::vector<ScriptPolicy::Step> steps)
      : ScriptedRun(cluster_yaml, csv, std::move(steps), contended()) {}
  static RuntimeConfig contended() {
    RuntimeConfig c;
    c.network.contention = true;
    return c;
  }
};

std::vector<DeviceId> join(std::vector<DeviceId> a, const std::vector<DeviceId>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

RuntimeConfig with_contention() {
  RuntimeConfig c;
  c.network.contention = true;
  return c;
}

std::string route_names(const NetworkModel& net, Router::Vertex a, Router::Vertex b) {
  std::vector<Hop> hops;
  net.router().route(a, b, hops);
  std::vector<std::string> names;
  names.reserve(hops.size());
  for (const Hop& h : hops)
    names.push_back(net.router().hop_name(h));
  return fmt::format("{}", fmt::join(names, "|"));
}

} // namespace

// ---- the solver by hand ---------------------------------------------------------------------

TEST_CASE("max-min: two flows on one link get half each", "[network]") {
  MaxMinSolver s({10.0});
  auto a = s.add_flow(res({0}));
  auto b = s.add_flow(res({0}));
  s.update();
  // One link of 10: fair share 10 / 2 = 5 each.
  CHECK(s.rate(a) == 5.0);
  CHECK(s.rate(b) == 5.0);
  // The second one leaves: the first gets the whole link.
  s.remove_flow(b);
  const auto& changed = s.update();
  REQUIRE(changed.size() == 1);
  CHECK(changed[0] == a);
  CHECK(s.rate(a) == 10.0);
}

TEST_CASE("max-min: a flow bottlenecked elsewhere leaves its share to the others", "[network]") {
  // Three links in a line: r0 (10), r1 (8), r2 (3). The long flow f0 crosses all three; f1 is on
  // r0, f2 on r1, f3 and f4 on r2.
  MaxMinSolver s({10.0, 8.0, 3.0});
  auto f0 = s.add_flow(res({0, 1, 2}));
  auto f1 = s.add_flow(res({0}));
  auto f2 = s.add_flow(res({1}));
  auto f3 = s.add_flow(res({2}));
  auto f4 = s.add_flow(res({2}));
  s.update();
  // Fair shares: r0 10/2 = 5, r1 8/2 = 4, r2 3/3 = 1. r2 fills first: f0 = f3 = f4 = 1.
  // Then r1 has 8 - 1 = 7 left for f2 alone, r0 10 - 1 = 9 for f1 alone: f2 = 7, f1 = 9.
  // An equal split would have given f1 only 5 and f2 only 4.
  CHECK(s.rate(f0) == 1.0);
  CHECK(s.rate(f3) == 1.0);
  CHECK(s.rate(f4) == 1.0);
  CHECK(s.rate(f2) == 7.0);
  CHECK(s.rate(f1) == 9.0);
  // Every link is full: 1 + 9 = 10, 1 + 7 = 8, 1 + 1 + 1 = 3.
  CHECK(s.load(0) == 10.0);
  CHECK(s.load(1) == 8.0);
  CHECK(s.load(2) == 3.0);
}

TEST_CASE("max-min: a capped flow takes its demand and leaves the rest", "[network]") {
  MaxMinSolver s({10.0});
  auto a = s.add_flow(res({0}), 1.5);
  auto b = s.add_flow(res({0}));
  auto c = s.add_flow(res({0}));
  s.update();
  // Equal shares would be 10/3 = 3.33; a needs only 1.5, so b and c split 10 - 1.5 = 8.5: 4.25.
  CHECK(s.rate(a) == 1.5);
  CHECK(s.rate(b) == 4.25);
  CHECK(s.rate(c) == 4.25);
}

TEST_CASE("max-min: an update re-solves only the components that changed", "[network]") {
  // Links r0 (10), r1 (4), r2 (6). Flows a, b on r0: one component. c over r1 and r2, d on r2:
  // another. Shares: r0 10/2 = 5; r1 4/1 = 4, r2 6/2 = 3, so r2 fills first: c = d = 3.
  MaxMinSolver s({10.0, 4.0, 6.0});
  auto a = s.add_flow(res({0}));
  auto b = s.add_flow(res({0}));
  auto c = s.add_flow(res({1, 2}));
  auto d = s.add_flow(res({2}));
  s.update();
  CHECK(s.last_solved_flows() == 4);
  CHECK(s.rate(a) == 5.0);
  CHECK(s.rate(c) == 3.0);
  CHECK(s.rate(d) == 3.0);
  // e joins a and b on r0: only that component (a, b, e) is re-solved, at 10/3 each; c and d
  // are neither re-solved nor reported.
  auto e = s.add_flow(res({0}));
  auto changed = s.update();
  CHECK(s.last_solved_flows() == 3);
  std::sort(changed.begin(), changed.end());
  CHECK(changed == std::vector<MaxMinSolver::FlowId>{a, b, e});
  CHECK(s.rate(e) == 10.0 / 3.0);
  // c leaves: only d is re-solved, and gets r2 alone: 6.
  s.remove_flow(c);
  changed = s.update();
  CHECK(s.last_solved_flows() == 1);
  CHECK(changed == std::vector<MaxMinSolver::FlowId>{d});
  CHECK(s.rate(d) == 6.0);
  CHECK(s.rate(a) == 10.0 / 3.0);
  // f over r0 and r2 joins the two components into one of five flows. r0 4 flows: 10/4 = 2.5;
  // r2 2 flows: 6/2 = 3. r0 fills first: a = b = e = f = 2.5; d gets 6 - 2.5 = 3.5.
  auto f = s.add_flow(res({0, 2}));
  changed = s.update();
  CHECK(s.last_solved_flows() == 5);
  CHECK(changed.size() == 5);
  CHECK(s.rate(a) == 2.5);
  CHECK(s.rate(f) == 2.5);
  CHECK(s.rate(d) == 3.5);
  // Nothing changed since: an update solves nothing.
  CHECK(s.update().empty());
  CHECK(s.last_solved_flows() == 0);
}

TEST_CASE("a flow crossing a PCIe switch and a NIC is limited by the narrower", "[network]") {
  // PCIe gen3 x16 = 15.76 GB/s against a 100 Gbit/s NIC = 12.5 GB/s: 12.5.
  Cluster fast = cluster_from_yaml(kTwoNodes4);
  NetworkModel a(fast);
  auto f = a.add_flow(a.router().device_vertex(0), a.router().device_vertex(4));
  std::vector<std::uint32_t> changed;
  a.update(changed);
  CHECK(a.rate_gb_s(f) == 12.5);
  // Up device 0's switch and socket to the NIC, the ToR, and down node 1 to device 4.
  CHECK(route_names(a, a.router().device_vertex(0), a.router().device_vertex(4)) ==
        "dev0>n0.pcie0|n0.pcie0>n0.socket0|n0.socket0>n0.nic|n0.nic>tor0|tor0>n1.nic|"
        "n1.nic>n1.socket0|n1.socket0>n1.pcie0|n1.pcie0>dev4");
  // PCIe gen2 x8 = 0.5 x 8 = 4 GB/s against the same NIC: 4.
  Cluster slow =
      cluster_from_yaml("nodes:\n  - {count: 2, devices: {V100: 4}, pcie: {gen: 2, lanes: 8}}\n");
  NetworkModel b(slow);
  auto g = b.add_flow(b.router().device_vertex(0), b.router().device_vertex(4));
  b.update(changed);
  CHECK(b.rate_gb_s(g) == 4.0);
}

TEST_CASE("routes stay under a shared PCIe switch and take NVLink where there is one",
          "[network]") {
  Cluster c = cluster_from_yaml(kTwoNodes8);
  NetworkModel net(c);
  const Router& r = net.router();
  CHECK(route_names(net, r.device_vertex(0), r.device_vertex(1)) == "dev0>n0.pcie0|n0.pcie0>dev1");
  // Devices 3 and 4 are under switches 0 and 1, which hang from sockets 0 and 1.
  CHECK(
      route_names(net, r.device_vertex(3), r.device_vertex(4)) ==
      "dev3>n0.pcie0|n0.pcie0>n0.socket0|n0.socket0>n0.socket1|n0.socket1>n0.pcie1|n0.pcie1>dev4");
  Cluster nv = cluster_from_yaml("nodes:\n  - {count: 2, devices: {V100: 8}, nvlink: true}\n");
  NetworkModel nvnet(nv);
  const Router& rn = nvnet.router();
  CHECK(route_names(nvnet, rn.device_vertex(3), rn.device_vertex(4)) == "dev3>dev4");
  // NVLink never carries traffic to the host or the NIC: device 4 reaches the network by PCIe.
  CHECK(route_names(nvnet, rn.device_vertex(4), rn.device_vertex(8)) ==
        "dev4>n0.pcie1|n0.pcie1>n0.socket1|n0.socket1>n0.socket0|n0.socket0>n0.nic|n0.nic>tor0|"
        "tor0>n1.nic|n1.nic>n1.socket0|n1.socket0>n1.pcie0|n1.pcie0>dev8");
  // Across racks the route also climbs to the spine.
  Cluster racks = cluster_from_yaml(kTwoRacks);
  NetworkModel rnet(racks);
  CHECK(route_names(rnet, rnet.router().device_vertex(0), rnet.router().device_vertex(8)) ==
        "dev0>n0.pcie0|n0.pcie0>n0.socket0|n0.socket0>n0.nic|n0.nic>tor0|tor0>spine|spine>tor1|"
        "tor1>n2.nic|n2.nic>n2.socket0|n2.socket0>n2.pcie0|n2.pcie0>dev8");
}

TEST_CASE("a non-blocking rack uplink is left out of the solver, an oversubscribed one is not",
          "[network]") {
  // Default fabric: the uplink gets the sum of the rack's NICs, 2 x 12.5 = 25 >= 25: never a
  // bottleneck. With tor_uplink_gbit_s 100 (12.5 GB/s < 25) it constrains.
  auto uplink = [](const Cluster& c) {
    for (std::uint32_t l = 0; l < c.topology.link_count(); ++l) {
      if (c.topology.link(l).kind == LinkKind::kRackUplink) return l;
    }
    return 0u;
  };
  Cluster open = cluster_from_yaml(kTwoNodes4);
  CHECK_FALSE(NetworkModel(open).constrains(uplink(open)));
  Cluster over = cluster_from_yaml(kTwoRacks);
  CHECK(NetworkModel(over).constrains(uplink(over)));
}

TEST_CASE("parameter-server flows: push and pull phases through the shard's socket", "[network]") {
  // 2 workers x 1 GPU on nodes 0 and 1 (devices 0 and 4), one PS shard on node 0's socket 0.
  // resnet50: 25.6M params x 4 B = 102.4 MB per push and per pull (one shard: all of it).
  Cluster c = cluster_from_yaml(kTwoNodes4);
  NetworkModel net(c);
  std::vector<DeviceId> devices = {0, 4};
  JobTrafficRequest r;
  r.pattern = TrafficRequest{devices, 1, 1, false};
  r.model_bytes = 102.4e6;
  net.add_job(7, r);
  std::vector<std::uint32_t> changed;
  net.update(changed);
  // 2 replicas x 1 shard x (push + pull) = 4 flows, all owned by job 7.
  REQUIRE(net.job_flows(7)->size() == 4);
  CHECK(changed == std::vector<std::uint32_t>{7, 7, 7, 7});
  // Device 0's push stays in node 0 (dev0 > pcie0 > socket0: 15.76 GB/s); device 4's crosses the
  // NICs (12.5 GB/s). Each phase lasts as long as its slowest flow: 102.4e6 / 12.5e9 = 8.192 ms
  // for the push, the same for the pull. Latency: 2 steps x the longest route, dev4 > pcie0 >
  // socket0 > nic > tor0 > nic > socket0 of node 0 = 1+1+1+1+1+1 = 6 us.
  // comm = 2 x 8.192 ms + 2 x 6 us = 16.396 ms.
  CHECK(net.times(7).comm_s == Approx(0.016396).epsilon(1e-12));
  CHECK(net.times(7).input_s == 0.0);
  net.remove_job(7);
  CHECK_FALSE(net.has_job(7));
  CHECK(net.solver().flow_count() == 0);
}

TEST_CASE("iteration time: communication hides behind the backward pass up to its length",
          "[network]") {
  // compute 0.3 s: backward = 2/3 x 0.3 = 0.2 s. overlap 0.5.
  // comm 0.1 s: hidden part 0.05 <= 0.2, exposed = 0.05: 0.35 s.
  CHECK(iteration_seconds(0.3, 0.1, 0.5, 0) == Approx(0.35));
  // comm 0.6 s: hidden part 0.3 > 0.2, exposed = 0.3 + (0.3 - 0.2) = 0.4: 0.7 s.
  CHECK(iteration_seconds(0.3, 0.6, 0.5, 0) == Approx(0.7));
  // Input loading slower than the rest sets the pace: max(0.3, 0.5) = 0.5 s.
  CHECK(iteration_seconds(0.3, 0, 0.5, 0.5) == Approx(0.5));
}

// ---- end to end --------------------------------------------------------------------------

// The job of the next cases: 2 workers x 4 V100 training vgg16 for 1000 iterations.
//   model bytes M = 138.4M params x 4 B = 553.6 MB; 8 replicas in a ring: each flow carries
//   2 (8 - 1) / 8 x 553.6 MB = 968.8 MB per iteration, in 2 (8 - 1) = 14 latency steps.
//   compute 0.140 s per iteration (zoo, V100); overlap 0.85; backward window 2/3 x 0.14 = 0.09333
//   s. input: 0.15 MB x 32 = 4.8 MB per device and iteration, capped at 4.8 MB / 0.14 s = 0.0342857
//   GB/s.
constexpr const char* kVggJob =
    "id,submit_s,workers,gpus_per_worker,iterations,model\na,0,2,4,1000,vgg16\n";

TEST_CASE("a 2x4-GPU all-reduce job consolidated on one node vs spread over two", "[network]") {
  Cluster c = cluster_from_yaml(kTwoNodes8);
  Workload w = workload_from_csv(c, kVggJob);
  // Consolidated on node 0 (devices 0-7, no NVLink). Ring 0>1>...>7>0. Each directed link
  // carries one ring flow, but the host bridge down into switch 0 (socket0>pcie0) also carries
  // the 4 capped input flows of devices 0-3, as socket1>pcie1 those of devices 4-7; flows 7>0
  // and 3>4 cross them: 15.76 - 4 x 0.0342857 = 15.622857 GB/s, the slowest flow.
  // Longest route 3>4: pcie 1 + host bridge 1 + socket link 0.1 + host bridge 1 + pcie 1 = 4.1 us.
  // comm = 968.8e6 / 15.622857e9 + 14 x 4.1 us = 0.0620117 + 0.0000574 = 0.0620691 s
  // hidden 0.85 x 0.0620691 = 0.0527587 <= 0.09333: exposed 0.15 x 0.0620691 = 0.0093104 s
  // iteration 0.14 + 0.0093104 = 0.1493104 s; JCT 1000 x that = 149.3104 s.
  RunOutput cons = run_policy("fifo", c, w, with_contention(), "consolidate");
  CHECK(cons.state.jobs[0].nodes_used == 1);
  CHECK(to_seconds(cons.state.jobs[0].end) == Approx(149.310366).margin(2e-6));
  // Spread: worker 0 on node 0 (devices 0-3), worker 1 on node 1 (devices 8-11). Flows 3>8 and
  // 11>0 cross both NICs: 12.5 GB/s. Their route: pcie, host bridge, NIC host bridge, NIC,
  // NIC, NIC host bridge, host bridge, pcie = 8 x 1 us.
  // comm = 968.8e6 / 12.5e9 + 14 x 8 us = 0.077504 + 0.000112 = 0.077616 s
  // hidden 0.85 x 0.077616 = 0.0659736 <= 0.09333: exposed 0.15 x 0.077616 = 0.0116424 s
  // iteration 0.1516424 s; JCT 151.6424 s.
  RunOutput spread = run_policy("fifo", c, w, with_contention(), "spread");
  CHECK(spread.state.jobs[0].nodes_used == 2);
  CHECK(to_seconds(spread.state.jobs[0].end) == Approx(151.6424).margin(2e-6));
  // Without the network model both take 1000 x 0.14 = 140 s, as today.
  RunOutput plain = run_policy("fifo", c, w, RuntimeConfig{}, "spread");
  CHECK(plain.state.jobs[0].end == 140'000'000);
}

TEST_CASE("two all-reduce jobs sharing an oversubscribed rack uplink each slow down", "[network]") {
  // kTwoRacks: nodes 0, 1 in rack 0 and 2, 3 in rack 1 (4 V100 each). Job a on nodes 0 and 2,
  // job b on nodes 1 and 3: each ring crosses from rack 0 to rack 1 once and back once.
  // Route 3>8: pcie, host bridge, NIC host bridge, NIC, uplink, uplink, NIC, NIC host bridge,
  // host bridge, pcie = 10 x 1 us.
  // Alone, a's cross flows get min(NIC 12.5, uplink 12.5) = 12.5 GB/s:
  //   comm = 0.077504 + 14 x 10 us = 0.077644 s; exposed 0.15 x 0.077644 = 0.0116466 s
  //   (hidden 0.0659974 <= 0.09333); iteration 0.1516466 s; JCT 151.6466 s.
  // Together, each directed uplink carries one flow of each: 12.5 / 2 = 6.25 GB/s each:
  //   comm = 968.8e6 / 6.25e9 + 0.00014 = 0.155008 + 0.00014 = 0.155148 s
  //   hidden 0.85 x 0.155148 = 0.1318758 > 0.09333: exposed = 0.15 x 0.155148
  //   + (0.1318758 - 0.0933333) = 0.0232722 + 0.0385425 = 0.0618147 s
  //   iteration 0.2018147 s; JCT 201.8147 s each: 50.17 s (33%) slower than alone.
  const std::string csv = "id,submit_s,workers,gpus_per_worker,iterations,model\n"
                          "a,0,2,4,1000,vgg16\nb,0,2,4,1000,vgg16\n";
  const auto a_devs = join(device_range(0, 4), device_range(8, 12));
  const auto b_devs = join(device_range(4, 8), device_range(12, 16));
  SECTION("alone") {
    Scripted s(kTwoRacks,
               "id,submit_s,workers,gpus_per_worker,iterations,model\na,0,2,4,1000,vgg16\n",
               {{0, [&](Control& c) { c.start(0, a_devs); }}});
    s.run();
    CHECK(s.end_s("a") == Approx(151.6466).margin(2e-6));
  }
  SECTION("together") {
    Scripted s(kTwoRacks, csv,
               {{0,
                 [&](Control& c) {
                   c.start(0, a_devs);
                   c.start(1, b_devs);
                 }},
                {1'000'000, [&](Control& c) {
                   // The cross-rack flows really got half the uplink each.
                   const NetworkModel& net = *c.network();
                   double slowest = kInf;
                   for (auto f : *net.job_flows(0)) {
                     if (net.solver().cap(f) == kInf)
                       slowest = std::min(slowest, net.rate_gb_s(f)); // ring, not input
                   }
                   CHECK(slowest == 6.25);
                 }}});
    s.run();
    CHECK(s.end_s("a") == Approx(201.814667).margin(2e-6));
    CHECK(s.end_s("b") == Approx(201.814667).margin(2e-6));
  }
  SECTION("b arrives later: a's finish moves when its bandwidth drops") {
    // a alone for 50 s: 50 / 0.1516466 = 329.714 iterations. Then both at 0.2018147 s per
    // iteration: a's 670.286 left take 135.274 s, so a ends at 185.274 s. b has then done
    // 135.274 / 0.2018147 = 670.286 iterations; its last 329.714 run alone at 0.1516466 s:
    // 50 s more, b ends at 235.274 s.
    Scripted s(kTwoRacks,
               "id,submit_s,workers,gpus_per_worker,iterations,model\n"
               "a,0,2,4,1000,vgg16\nb,50,2,4,1000,vgg16\n",
               {{0, [&](Control& c) { c.start(0, a_devs); }},
                {50'000'000, [&](Control& c) { c.start(1, b_devs); }}});
    s.run();
    double a_end = 50 + (1000 - 50 / 0.1516466) * 0.20181466666666667;
    CHECK(a_end == Approx(185.274).margin(1e-3));
    CHECK(s.end_s("a") == Approx(a_end).margin(2e-6));
    CHECK(s.end_s("b") == Approx(a_end + 50).margin(4e-6));
  }
}

TEST_CASE("flows follow suspend and resume and migrate and cancel: the other job's finish moves",
          "[network]") {
  // kTwoRacks with 8 V100 per node: nodes 0, 1 in rack 0 (devices 0-15), nodes 2, 3 in rack 1
  // (16-31); 2:1 uplinks of 12.5 GB/s. a on devices 0-3 and 16-19 (nodes 0, 2), b on 8-11 and
  // 24-27 (nodes 1, 3): as in the test above, a's iteration is T1 = 0.1516466 s alone and
  // T2 = 0.20181466667 s while b's ring shares the uplinks (the extra input flows on node 0's
  // host bridge leave 15.76 - 4 x 0.0342857 = 15.62 > 12.5 GB/s: not the bottleneck).
  // Default costs: suspend 5 s, resume 5 s, migrate 10 s; a job holds no flow while paying one.
  //   0-20 s   both run: a at T2
  //   20 s     b suspended: its flows go at once; a alone (T1) until b runs again
  //   40 s     b resumed on the same devices: running (flows back) at 45 s; a at T2 from 45 s
  //   60 s     b migrated to the whole of node 1 (devices 8-15): no flows during the 10 s move,
  //            then its ring stays inside node 1, off the uplinks: a at T1 from 60 s on
  //   80 s     b cancelled
  // a by 60 s: 35 / T2 + 25 / T1 = 173.4265 + 164.8570 = 338.2835 iterations; the 661.7165 left
  // take 661.7165 x T1 = 100.3471 s: a ends at 160.347 s.
  // b: 35 / T2 = 173.4265 iterations by 60 s, then on node 1 from 70 s at the consolidated
  // iteration of the 2x4 test above, 0.149310366 s (slowest flow 15.622857 GB/s on a host
  // bridge shared with 4 input flows): 10 s = 66.9746 more, 240.4011 in all when cancelled.
  const double t1 = 0.1516466;
  const double t2 = 0.14 + 0.15 * 0.155148 + (0.85 * 0.155148 - 0.14 * 2.0 / 3.0);
  const double t_node = 0.149310366;
  const std::string yaml = "fabric: {nodes_per_rack: 2, tor_uplink_gbit_s: 100}\n"
                           "nodes:\n  - {count: 4, devices: {V100: 8}}\n";
  Scripted s(yaml,
             "id,submit_s,workers,gpus_per_worker,iterations,model\n"
             "a,0,2,4,1000,vgg16\nb,0,2,4,1000,vgg16\n",
             {{0,
               [](Control& c) {
                 c.start(0, join(device_range(0, 4), device_range(16, 20)));
                 c.start(1, join(device_range(8, 12), device_range(24, 28)));
               }},
              {20'000'000, [](Control& c) { c.suspend(1); }},
              {40'000'000,
               [](Control& c) { c.resume(1, join(device_range(8, 12), device_range(24, 28))); }},
              {60'000'000, [](Control& c) { c.migrate(1, device_range(8, 16)); }},
              {80'000'000, [](Control& c) { c.cancel(1); }}});
  s.run();
  CHECK(t2 == Approx(0.20181466667).epsilon(1e-10));
  double a_end = 60 + (1000 - 35 / t2 - 25 / t1) * t1;
  CHECK(a_end == Approx(160.347).margin(1e-3));
  CHECK(s.end_s("a") == Approx(a_end).margin(3e-6));
  const JobState& b = s.sim->state().jobs[job_named(s.workload, "b")];
  CHECK(b.status == JobStatus::kCancelled);
  CHECK(to_seconds(b.end) == 80.0);
  CHECK(b.done == Approx(35 / t2 + 10 / t_node).epsilon(1e-7));
  CHECK(b.done == Approx(240.4011).margin(1e-3));
  // Every flow is gone once both jobs are over.
  CHECK(s.sim->state().network->solver().flow_count() == 0);
}

TEST_CASE("a VGG16-like job suffers from a bad placement far more than a ResNet-50-like one",
          "[network]") {
  // 4 nodes of 4 V100 joined by NVLink (150 GB/s per pair), 25 Gbit/s Ethernet (3.125 GB/s).
  // A 4-worker job: consolidated on one node (NVLink ring) or spread one GPU per node.
  // Ring of 4: 2 x 3 / 4 = 1.5 M per flow, 6 latency steps.
  // vgg16 (M 553.6 MB, compute 0.14 s, overlap 0.85, window 0.09333 s):
  //   NVLink: 830.4e6 / 150e9 + 6 x 0.5 us = 0.005539 s; exposed 0.15 x that = 0.00083085;
  //           iteration 0.14083085 s
  //   spread: 830.4e6 / 3.125e9 + 6 x 8 us = 0.265776 s; hidden 0.2259096 > 0.09333:
  //           exposed 0.0398664 + 0.1325763 = 0.1724427; iteration 0.3124427 s (x 2.2186)
  // resnet50 (M 102.4 MB, compute 0.128 s, overlap 0.8, window 0.085333 s):
  //   NVLink: 153.6e6 / 150e9 + 3 us = 0.001027 s; exposed 0.2 x that; iteration 0.1282054 s
  //   spread: 153.6e6 / 3.125e9 + 48 us = 0.0492 s; hidden 0.03936 <= 0.085333:
  //           exposed 0.00984; iteration 0.13784 s (x 1.0752)
  // VGG16 loses 121.9% to the bad placement, ResNet-50 7.5%: 16 times as much (docs/network.md).
  Cluster c = cluster_from_yaml(
      "nodes:\n  - {count: 4, devices: {V100: 4}, nvlink: true, nic_gbit_s: 25}\n");
  auto jct = [&](const char* model, const char* placement) {
    Workload w = workload_from_csv(
        c, fmt::format("id,submit_s,workers,iterations,model\nj,0,4,1000,{}\n", model));
    return to_seconds(run_policy("fifo", c, w, with_contention(), placement).state.jobs[0].end);
  };
  double vgg_good = jct("vgg16", "consolidate");
  double vgg_bad = jct("vgg16", "spread");
  double resnet_good = jct("resnet50", "consolidate");
  double resnet_bad = jct("resnet50", "spread");
  CHECK(vgg_good == Approx(140.83085).margin(2e-6));
  CHECK(vgg_bad == Approx(312.442667).margin(2e-6));
  CHECK(resnet_good == Approx(128.2054).margin(2e-6));
  CHECK(resnet_bad == Approx(137.84).margin(2e-6));
  double vgg_slowdown = vgg_bad / vgg_good;
  double resnet_slowdown = resnet_bad / resnet_good;
  CHECK(vgg_slowdown == Approx(2.2186).epsilon(1e-4));
  CHECK(resnet_slowdown == Approx(1.0751).epsilon(1e-4));
  CHECK((vgg_slowdown - 1) / (resnet_slowdown - 1) > 10);
}

TEST_CASE("an uncontended single-device job and a model-less job run exactly as without the "
          "model",
          "[network]") {
  // One GPU with a model: only its input flow (4.8 MB per iteration, capped at 4.8 MB / 0.14 s =
  // 0.0343 GB/s), which gets its cap on a 15.76 GB/s PCIe link, so prefetching hides it. Two
  // GPUs with no model: no flow at all. Both take their plain times: 100 x 0.140 s = 14 s and
  // 20 s of duration.
  Cluster c = cluster_from_yaml(kTwoNodes4);
  Workload w =
      workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,iterations,duration_s,model\n"
                           "one,0,1,1,100,,vgg16\nplain,0,2,1,,20,\n");
  RunOutput with = run_policy("fifo", c, w, with_contention(), "spread");
  RunOutput without = run_policy("fifo", c, w, RuntimeConfig{}, "spread");
  for (JobId j = 0; j < 2; ++j)
    CHECK(with.state.jobs[j].end == without.state.jobs[j].end);
  CHECK(with.state.jobs[job_named(w, "one")].end == 14'000'000);
  CHECK(with.state.jobs[job_named(w, "plain")].end == 20'000'000);
}

TEST_CASE("single-device jobs load their input over PCIe and slow down when it is starved",
          "[network]") {
  // One node of 4 V100 under one PCIe switch, every PCIe link (device and host bridge) set to
  // 0.02 GB/s. vgg16 needs 0.15 MB x 32 = 4.8 MB of input per iteration, compute 0.14 s, so its
  // input flow asks for 4.8e6 / 0.14 = 0.0343 GB/s and gets only 0.02: loading takes
  // 4.8e6 / 0.02e9 = 0.24 s > 0.14 s, and sets the pace: 0.24 s per iteration.
  // x (100 iterations) on device 0 from 0 s, y (100) on device 1 from 12 s; their input flows
  // share the host bridge n0.socket0>n0.pcie0: 0.01 GB/s each, 0.48 s per iteration.
  //   x: 12 / 0.24 = 50 iterations alone, the other 50 shared: 50 x 0.48 = 24 s: ends at 36 s.
  //   y: 24 / 0.48 = 50 iterations by 36 s, the other 50 alone: 50 x 0.24 = 12 s: ends at 48 s.
  const std::string yaml = "nodes:\n  - {count: 1, devices: {V100: 4}, pcie: {gb_s: 0.02}}\n";
  Scripted s(yaml,
             "id,submit_s,workers,gpus_per_worker,iterations,model\n"
             "x,0,1,1,100,vgg16\ny,12,1,1,100,vgg16\n",
             {{0, [](Control& c) { c.start(0, std::vector<DeviceId>{0}); }},
              {12'000'000, [](Control& c) {
                 c.start(1, std::vector<DeviceId>{1});
                 const NetworkModel& net = *c.network();
                 REQUIRE(net.job_flows(0)->size() == 1);
                 REQUIRE(net.job_flows(1)->size() == 1);
               }}});
  s.run();
  CHECK(s.end_s("x") == Approx(36.0).margin(2e-6));
  CHECK(s.end_s("y") == Approx(48.0).margin(2e-6));
}

// ---- topology-aware placement ---------------------------------------------------------------

TEST_CASE("topology-aware placement avoids a loaded socket link that consolidate shares",
          "[network]") {
  // 2 nodes of 8 V100, two per PCIe switch: switches 0 and 2 on socket 0, 1 and 3 on socket 1,
  // and a slow 10 GB/s socket link. Job x (4 GPUs) runs on devices 0-3 of node 0 (switches 0
  // and 1): its ring crosses the socket link both ways. Job y (4 GPUs) must span two switches
  // on either node. consolidate takes the best-fit node 0 (devices 4-7, switches 2 and 3): y
  // would share the socket link with x, 10 / 2 = 5 GB/s each way. topology-aware scores node 1
  // (devices 8-11) at min(PCIe 15.76, socket link 10 / 1) = 10 GB/s and takes it.
  const std::string yaml =
      "nodes:\n  - {count: 2, devices: {V100: 8}, pcie: {devices_per_switch: 2}, "
      "socket_link_gb_s: 10}\n";
  std::optional<std::vector<DeviceId>> consolidated, aware;
  Scripted s(yaml,
             "id,submit_s,workers,gpus_per_worker,iterations,model\nx,0,1,4,1000,vgg16\ny,1,1,4,10,"
             "vgg16\n",
             {{0, [](Control& c) { c.start(0, device_range(0, 4)); }},
              {1'000'000, [&](Control& c) {
                 consolidated = place(c, 1, Placement::kConsolidate);
                 aware = place(c, 1, Placement::kTopologyAware);
                 c.start(1, *aware);
               }}});
  s.run();
  REQUIRE(consolidated);
  REQUIRE(aware);
  CHECK(*consolidated == device_range(4, 8));
  CHECK(*aware == device_range(8, 12));
}

TEST_CASE("topology-aware placement keeps a multi-node job inside one rack", "[network]") {
  // 6 nodes of 4 V100 in 3 racks (2 per rack), 2:1 oversubscribed uplinks. Job a runs on nodes
  // 0 and 2 (racks 0 and 1). Job b needs 2 whole nodes: consolidate takes the first two with 4
  // free, nodes 1 and 3, across the racks a already loads; topology-aware takes nodes 4 and 5,
  // which share rack 2's switch and need no uplink at all.
  const std::string yaml = "fabric: {nodes_per_rack: 2, tor_uplink_gbit_s: 100}\n"
                           "nodes:\n  - {count: 6, devices: {V100: 4}}\n";
  std::optional<std::vector<DeviceId>> consolidated, aware;
  Scripted s(yaml,
             "id,submit_s,workers,gpus_per_worker,iterations,model\na,0,2,4,100,vgg16\nb,1,2,4,100,"
             "vgg16\n",
             {{0, [](Control& c) { c.start(0, join(device_range(0, 4), device_range(8, 12))); }},
              {1'000'000, [&](Control& c) {
                 consolidated = place(c, 1, Placement::kConsolidate);
                 aware = place(c, 1, Placement::kTopologyAware);
                 c.start(1, *aware);
               }}});
  s.run();
  REQUIRE(consolidated);
  REQUIRE(aware);
  CHECK(*consolidated == join(device_range(4, 8), device_range(12, 16)));
  CHECK(*aware == device_range(16, 24));
}

TEST_CASE("topology-aware is a placement name every policy accepts", "[network]") {
  CHECK(parse_placement("topology-aware") == Placement::kTopologyAware);
  CHECK(to_string(Placement::kTopologyAware) == "topology-aware");
  // FIFO with it runs the bundled-style jobs to the end (invariants checked by run_policy).
  Cluster c = cluster_from_yaml(kTwoRacks);
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,iterations,model\n"
                                    "a,0,2,4,100,vgg16\nb,0,1,2,100,resnet50\nc,5,1,1,100,lstm\n");
  RunOutput out = run_policy("fifo", c, w, with_contention(), "topology-aware");
  CHECK(out.state.finished == 3);
}

// ---- incremental versus from scratch --------------------------------------------------------

namespace {

// Textbook progressive filling, written independently of MaxMinSolver: raise every unfrozen flow
// by the largest common increment, freeze the flows of saturated resources and those at their
// cap, repeat. O(flows x resources) per round.
std::map<std::uint32_t, double> reference_rates(
    const std::vector<double>& caps,
    const std::map<std::uint32_t, std::pair<std::vector<std::uint32_t>, double>>& flows) {
  std::map<std::uint32_t, double> rate;
  std::map<std::uint32_t, bool> frozen;
  for (const auto& [id, f] : flows) {
    rate[id] = 0;
    frozen[id] = false;
  }
  while (true) {
    double step = kInf;
    std::vector<double> used(caps.size(), 0.0);
    std::vector<int> active(caps.size(), 0);
    for (const auto& [id, f] : flows) {
      for (auto r : f.first) {
        used[r] += rate[id];
        if (!frozen[id]) ++active[r];
      }
      if (!frozen[id]) step = std::min(step, f.second - rate[id]);
    }
    for (std::size_t r = 0; r < caps.size(); ++r) {
      if (active[r] > 0) step = std::min(step, (caps[r] - used[r]) / active[r]);
    }
    if (step == kInf) break;
    bool any = false;
    for (auto& [id, f] : flows) {
      if (!frozen[id]) {
        rate[id] += step;
        any = true;
      }
    }
    if (!any) break;
    for (const auto& [id, f] : flows) {
      if (frozen[id]) continue;
      bool stop = rate[id] >= f.second * (1 - 1e-12);
      for (auto r : f.first) {
        double total = 0;
        for (const auto& [id2, f2] : flows) {
          if (std::find(f2.first.begin(), f2.first.end(), r) != f2.first.end()) total += rate[id2];
        }
        stop = stop || total >= caps[r] * (1 - 1e-12);
      }
      if (stop) frozen[id] = true;
    }
  }
  return rate;
}

} // namespace

TEST_CASE("incremental updates give exactly the rates of solving from scratch", "[network]") {
  // 40 resources with link-like capacities (ties are common, as in a real cluster) and 2000
  // random changes (add a flow over 1-6 resources, sometimes capped, or remove one), seed 42.
  Rng rng = Rng::stream(42, "test.network.incremental");
  constexpr std::array<double, 6> kCaps = {12.5, 15.76, 25, 41.6, 150, 3.125};
  std::vector<double> caps;
  caps.reserve(40);
  for (int r = 0; r < 40; ++r)
    caps.push_back(kCaps[rng.below(6)]);
  MaxMinSolver inc(caps);
  std::map<std::uint32_t, std::pair<std::vector<std::uint32_t>, double>> live; // id -> (route, cap)
  for (int step = 0; step < 2000; ++step) {
    if (live.empty() || rng.uniform01() < 0.55) {
      std::vector<std::uint32_t> route;
      std::size_t len = 1 + rng.below(6);
      while (route.size() < len) {
        auto r = static_cast<std::uint32_t>(rng.below(caps.size()));
        if (std::find(route.begin(), route.end(), r) == route.end()) route.push_back(r);
      }
      double cap = rng.uniform01() < 0.2 ? 0.05 + rng.below(4) : kInf;
      auto id = inc.add_flow(route, cap);
      live[id] = {route, cap};
    } else {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng.below(live.size())));
      inc.remove_flow(it->first);
      live.erase(it);
    }
    inc.update();
    if (step % 50 != 49) continue;
    // 1. A fresh solver given the same flows, in the same id order.
    MaxMinSolver fresh(caps);
    std::map<std::uint32_t, MaxMinSolver::FlowId> fresh_id;
    for (const auto& [id, f] : live)
      fresh_id[id] = fresh.add_flow(f.first, f.second);
    fresh.solve_all();
    // 2. The same solver re-solved from scratch: nothing changes.
    std::vector<double> before;
    before.reserve(live.size());
    for (const auto& [id, f] : live)
      before.push_back(inc.rate(id));
    CHECK(inc.solve_all().empty());
    // 3. The independent textbook algorithm (to rounding).
    auto ref = reference_rates(caps, live);
    std::size_t k = 0;
    for (const auto& [id, f] : live) {
      CHECK(inc.rate(id) == before[k++]);
      CHECK(inc.rate(id) == fresh.rate(fresh_id[id]));
      CHECK(inc.rate(id) == Approx(ref[id]).epsilon(1e-9));
    }
    // No resource is over capacity.
    for (std::uint32_t r = 0; r < caps.size(); ++r)
      CHECK(inc.load(r) <= caps[r] * (1 + 1e-12));
  }
}

// ---- dlsim net-solve -----------------------------------------------------------------------

TEST_CASE("dlsim net-solve prints each flow's rate and route", "[network][cli]") {
  ScratchDir dir;
  std::string cluster = dir.write("tiny.yaml", kTwoNodes4);
  // Devices 0 and 1 both send to node 1: they share n0's NIC (12.5 / 2 = 6.25 GB/s each). The
  // third flow stays under node 1's switch and is capped at 2 GB/s by its own demand.
  std::string flows = dir.write("flows.csv", "flow,src,dst,cap_gbps\nx,0,4,\ny,1,5,\nz,6,7,2\n");
  Outcome r = run_dlsim("net-solve --cluster " + cluster + " --flows " + flows, dir);
  REQUIRE(r.code == 0);
  CHECK(r.out ==
        "flow,src,dst,rate_gbps,route\n"
        "x,0,4,6.25,dev0>n0.pcie0|n0.pcie0>n0.socket0|n0.socket0>n0.nic|n0.nic>tor0|tor0>n1.nic|"
        "n1.nic>n1.socket0|n1.socket0>n1.pcie0|n1.pcie0>dev4\n"
        "y,1,5,6.25,dev1>n0.pcie0|n0.pcie0>n0.socket0|n0.socket0>n0.nic|n0.nic>tor0|tor0>n1.nic|"
        "n1.nic>n1.socket0|n1.socket0>n1.pcie0|n1.pcie0>dev5\n"
        "z,6,7,2,dev6>n1.pcie0|n1.pcie0>dev7\n");
  // --links: every directed link, its bandwidth and what crosses it. n0.nic>tor0 carries x and
  // y: 2 flows, 12.5 GB/s.
  Outcome l = run_dlsim("net-solve --links --cluster " + cluster + " --flows " + flows, dir);
  REQUIRE(l.code == 0);
  CHECK_THAT(l.out, Catch::Contains("\n\nlink,kind,gb_s,latency_us,flows,load_gbps\n"));
  CHECK_THAT(l.out, Catch::Contains("\nn0.nic>tor0,nic,12.5,1,2,12.5\n"));
  CHECK_THAT(l.out, Catch::Contains("\ntor0>n0.nic,nic,12.5,1,0,0\n"));
  CHECK_THAT(l.out, Catch::Contains("\ndev0>n0.pcie0,pcie,15.76,1,1,6.25\n"));
}

TEST_CASE("dlsim net-solve rejects bad flows with file, line and column", "[network][cli]") {
  ScratchDir dir;
  std::string cluster = dir.write("tiny.yaml", kTwoNodes4);
  Outcome r = run_dlsim("net-solve --cluster " + cluster + " --flows " +
                            dir.write("f.csv", "src,dst\n0,4\n0,99\n"),
                        dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("f.csv:3: dst: '99' is not a device id (0 to 7)"));
  r = run_dlsim("net-solve --cluster " + cluster + " --flows " + dir.write("g.csv", "src\n0\n"),
                dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("g.csv:1: dst: required column missing"));
  r = run_dlsim("net-solve --cluster " + cluster + " --flows " +
                    dir.write("h.csv", "src,dst,cap_gbps\n2,2,\n"),
                dir);
  CHECK_THAT(r.err, Catch::Contains("h.csv:2: dst: a flow needs two different endpoints"));
  r = run_dlsim("net-solve --cluster " + cluster + " --flows " +
                    dir.write("i.csv", "src,dst,cap_gbps\n1,2,-3\n"),
                dir);
  CHECK_THAT(r.err,
             Catch::Contains("i.csv:2: cap_gbps: expected a positive number of GB/s, got '-3'"));
  // A row longer than the header: its line is named.
  r = run_dlsim("net-solve --cluster " + cluster + " --flows " +
                    dir.write("j.csv", "src,dst\n0,4\n1,5,7\n"),
                dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains(
                        "j.csv:3: expected 2 comma-separated fields as in the header, got more"));
  r = run_dlsim("net-solve --cluster " + cluster, dir);
  CHECK(r.code == 2);
}

TEST_CASE("dlsim net-solve quotes a flow label that holds a comma", "[network][cli]") {
  ScratchDir dir;
  std::string cluster = dir.write("tiny.yaml", kTwoNodes4);
  // One flow alone under node 0's switch: the whole PCIe link, 15.76 GB/s.
  std::string flows = dir.write("flows.csv", "flow,src,dst\n\"a,b\",0,1\n");
  Outcome r = run_dlsim("net-solve --cluster " + cluster + " --flows " + flows, dir);
  REQUIRE(r.code == 0);
  CHECK(r.out == "flow,src,dst,rate_gbps,route\n\"a,b\",0,1,15.76,dev0>n0.pcie0|n0.pcie0>dev1\n");
}

TEST_CASE("dlsim net-solve gives exactly the rates a run uses for the same flows",
          "[network][cli]") {
  // A run with contention: two vgg16 rings across the oversubscribed racks and a resnet50
  // parameter-server job (one shard: flows to a host socket). Mid-run, every live flow of the
  // simulation is written to a CSV (endpoints and caps) and solved by `dlsim net-solve`.
  ScratchDir dir;
  const std::string yaml = "fabric: {nodes_per_rack: 2, tor_uplink_gbit_s: 100}\n"
                           "nodes:\n  - {count: 4, devices: {V100: 8}}\n";
  std::string csv;
  std::vector<double> sim_rates;
  Scripted s(yaml,
             "id,submit_s,workers,gpus_per_worker,iterations,model,ps\n"
             "a,0,2,4,1000,vgg16,0\nb,0,2,4,1000,vgg16,0\nc,0,2,2,1000,resnet50,1\n",
             {{0,
               [](Control& c) {
                 c.start(0, join(device_range(0, 4), device_range(16, 20)));
                 c.start(1, join(device_range(8, 12), device_range(24, 28)));
                 c.start(2, std::vector<DeviceId>{4, 5, 12, 13});
               }},
              {1'000'000, [&](Control& c) {
                 const NetworkModel& net = *c.network();
                 csv = "src,dst,cap_gbps\n";
                 for (NetworkModel::FlowId f = 0; f < net.solver().flow_id_bound(); ++f) {
                   if (!net.solver().alive(f)) continue;
                   auto [a, b] = net.flow_ends(f);
                   double cap = net.solver().cap(f);
                   csv += fmt::format("{},{},{}\n", net.router().endpoint_label(a),
                                      net.router().endpoint_label(b),
                                      cap == kInf ? std::string() : fmt::format("{}", cap));
                   sim_rates.push_back(net.rate_gb_s(f));
                 }
               }}});
  s.run();
  // 8 ring + 8 input flows for each vgg16 job; resnet50: 4 replicas x (push + pull) + 4 inputs.
  REQUIRE(sim_rates.size() == 16 + 16 + 12);
  Outcome r = run_dlsim("net-solve --cluster " + dir.write("c.yaml", yaml) + " --flows " +
                            dir.write("f.csv", csv),
                        dir);
  REQUIRE(r.code == 0);
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line); // header
  std::size_t k = 0;
  while (std::getline(lines, line) && !line.empty()) {
    std::vector<std::string> cells;
    std::stringstream cs(line);
    for (std::string cell; std::getline(cs, cell, ',');)
      cells.push_back(cell);
    REQUIRE(cells.size() == 5);
    REQUIRE(k < sim_rates.size());
    // fmt prints the shortest text that reads back as the same double: exact comparison.
    CHECK(std::strtod(cells[3].c_str(), nullptr) == sim_rates[k]);
    ++k;
  }
  CHECK(k == sim_rates.size());
}
