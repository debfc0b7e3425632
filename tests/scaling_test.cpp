// The analytic scaling model (runtime.scaling: analytic; docs/scaling.md), worked out by hand.
#include "sim/engine/error.h"
#include "sim/runtime/scaling_model.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// Defaults (docs/cluster.md): PCIe gen3 x16 = 15.76 GB/s inside a node (no NVLink), NIC
// 100 Gbit/s = 12.5 GB/s; a ring step waits 5.7 us inside a node, 9.6 us across nodes.
constexpr const char* kTwoNodes8 = "nodes:\n  - {count: 2, devices: {V100: 8}}\n";
constexpr const char* kEightNodes2 = "nodes:\n  - {count: 8, devices: {V100: 2}}\n";

ScalingPlacement ring(std::uint32_t replicas, std::uint32_t nodes) {
  ScalingPlacement p;
  p.replicas = replicas;
  p.nodes = nodes;
  p.local_gb_s = 15.76;
  p.nic_gb_s = 12.5;
  return p;
}

RuntimeConfig analytic() {
  RuntimeConfig c;
  c.scaling = "analytic";
  return c;
}

} // namespace

// The zoo (docs/models.md): vgg16 138.4 M params -> M = 553.6e6 bytes, 0.140 s per iteration on
// a V100, comm_overlap 0.85; resnet50 25.6 M -> M = 102.4e6 bytes, 0.128 s, overlap 0.8.
// step = compute + (1 - o) comm + max(0, o comm - 2/3 compute) + 2 (n-1) x step latency,
// comm = 2 (n-1)/n M / bandwidth. 1, 2, 4 and 8 workers on one 8-GPU node (15.76 GB/s, 5.7 us
// a step); 16 on two (the NIC's 12.5 GB/s, 9.6 us a step).
TEST_CASE("analytic scaling: VGG-16 at 1, 2, 4, 8 and 16 workers", "[scaling]") {
  const double m = 553.6e6;
  const double t = 0.140;
  const double o = 0.85;
  // n = 1: nothing to exchange, 0.140 s.
  CHECK(analytic_step_s(t, m, o, ring(1, 1)) == Approx(0.140).epsilon(1e-9));
  // n = 2: comm = 553.6e6 / 15.76e9 = 0.0351269 s; hidden 0.85 x that = 0.0298579 < backward
  // 0.0933333, so exposed = 0.15 x 0.0351269 = 0.0052690; latency 2 x 5.7e-6 = 0.0000114;
  // step 0.1452804 s.
  CHECK(analytic_comm_s(m, ring(2, 1)) == Approx(0.0351269).epsilon(1e-5));
  CHECK(ring_latency_s(ring(2, 1)) == Approx(11.4e-6).epsilon(1e-9));
  CHECK(analytic_step_s(t, m, o, ring(2, 1)) == Approx(0.1452804).epsilon(1e-6));
  // n = 4: comm = 1.5 x 0.0351269 = 0.0526904; exposed 0.0079036; latency 6 x 5.7e-6 =
  // 0.0000342; step 0.1479378.
  CHECK(analytic_step_s(t, m, o, ring(4, 1)) == Approx(0.1479378).epsilon(1e-6));
  // n = 8: comm = 1.75 x 0.0351269 = 0.0614721; exposed 0.0092208; latency 14 x 5.7e-6 =
  // 0.0000798; step 0.1493006.
  CHECK(analytic_step_s(t, m, o, ring(8, 1)) == Approx(0.1493006).epsilon(1e-6));
  // n = 16 on 2 nodes: comm = 1.875 x 553.6e6 / 12.5e9 = 0.08304; hidden 0.070584 < 0.0933333;
  // exposed 0.012456; latency 30 x 9.6e-6 = 0.000288 (every step waits for a NIC); step 0.152744.
  CHECK(ring_latency_s(ring(16, 2)) == Approx(288e-6).epsilon(1e-9));
  CHECK(analytic_step_s(t, m, o, ring(16, 2)) == Approx(0.152744).epsilon(1e-6));
  // Diminishing returns: 16 workers do 16 x 0.140 / 0.152744 = 14.67 times one worker's work.
  CHECK(16 * t / analytic_step_s(t, m, o, ring(16, 2)) == Approx(14.6651).epsilon(1e-4));
  // On 25 Gbit/s NICs (3.125 GB/s) the exchange outlasts the backward pass: comm = 1.875 x
  // 553.6e6 / 3.125e9 = 0.33216; exposed = 0.15 x 0.33216 + (0.85 x 0.33216 - 0.0933333) =
  // 0.049824 + 0.1890027 = 0.2388267; step 0.3788267 + 0.000288 = 0.3791147; speedup 16 x 0.14
  // / that = 5.91.
  ScalingPlacement slow = ring(16, 2);
  slow.nic_gb_s = 3.125;
  CHECK(analytic_step_s(t, m, o, slow) == Approx(0.3791147).epsilon(1e-6));
  // The latency is a fixed cost: a PS job pays none, and a 1 ms step latency on 4 replicas in a
  // node adds 6 x 1 ms = 6 ms to the step whatever the model's bytes.
  ScalingPlacement ps = ring(4, 1);
  ps.ps = 1;
  CHECK(ring_latency_s(ps) == 0);
  ScalingPlacement slow_steps = ring(4, 1);
  slow_steps.local_step_s = 1e-3;
  CHECK(analytic_step_s(t, m, o, slow_steps) == Approx(0.1479036 + 0.006).epsilon(1e-6));
  CHECK(analytic_step_s(t, 0.0, o, slow_steps) == Approx(0.140 + 0.006).epsilon(1e-9));
}

TEST_CASE("analytic scaling: ResNet-50 at 1, 2, 4, 8 and 16 workers", "[scaling]") {
  const double m = 102.4e6;
  const double t = 0.128;
  const double o = 0.8;
  // Backward pass 2/3 x 0.128 = 0.0853333; every hidden part below is shorter, so exposed =
  // 0.2 x comm; latencies as for VGG-16. n = 1: 0.128.
  CHECK(analytic_step_s(t, m, o, ring(1, 1)) == Approx(0.128).epsilon(1e-9));
  // n = 2: comm = 102.4e6 / 15.76e9 = 0.0064975; step 0.128 + 0.0012995 + 0.0000114 = 0.1293109.
  CHECK(analytic_step_s(t, m, o, ring(2, 1)) == Approx(0.1293109).epsilon(1e-6));
  // n = 4: comm 1.5 x 0.0064975 = 0.0097462; step 0.1299492 + 0.0000342 = 0.1299834.
  CHECK(analytic_step_s(t, m, o, ring(4, 1)) == Approx(0.1299834).epsilon(1e-6));
  // n = 8: comm 1.75 x 0.0064975 = 0.0113706; step 0.1302741 + 0.0000798 = 0.1303539.
  CHECK(analytic_step_s(t, m, o, ring(8, 1)) == Approx(0.1303539).epsilon(1e-6));
  // n = 16 on 2 nodes: comm 1.875 x 102.4e6 / 12.5e9 = 0.01536; step 0.128 + 0.003072 + 0.000288
  // = 0.13136.
  CHECK(analytic_step_s(t, m, o, ring(16, 2)) == Approx(0.13136).epsilon(1e-6));
  // 16 x 0.128 / 0.13136 = 15.59: ResNet-50 scales better than VGG-16 (14.67).
  CHECK(16 * t / analytic_step_s(t, m, o, ring(16, 2)) == Approx(15.5907).epsilon(1e-5));
  // On 25 Gbit/s NICs: comm 1.875 x 102.4e6 / 3.125e9 = 0.06144, hidden 0.049152 still under
  // the backward pass: step 0.128 + 0.012288 + 0.000288 = 0.140576 (VGG-16's is 0.3791).
  ScalingPlacement slow = ring(16, 2);
  slow.nic_gb_s = 3.125;
  CHECK(analytic_step_s(t, m, o, slow) == Approx(0.140576).epsilon(1e-6));
}

TEST_CASE("analytic scaling: parameter servers are charged at the busiest NIC", "[scaling]") {
  // 4 replicas on 2 nodes (2 each), 1 shard on node 0: node 0's NIC carries the 2 remote
  // replicas' pushes, 1 x (4 - 2) = 2 units of M/1; node 1's carries its 2 replicas' pushes,
  // 2 x (1 - 0) = 2. So 2 M per phase at 12.5 GB/s.
  const std::uint32_t r[] = {2, 2};
  const std::uint32_t k1[] = {1, 0};
  CHECK(ps_nic_units(r, k1, 4, 1) == 2);
  // 2 shards, one per node: node a: max(1 x (4 - 2), 2 x (2 - 1)) = 2 units of M/2 = M.
  const std::uint32_t k2[] = {1, 1};
  CHECK(ps_nic_units(r, k2, 4, 2) == 2);
  ScalingPlacement p = ring(4, 2);
  p.ps = 1;
  p.ps_nic_units = 2;
  // vgg16: 2 phases x 2 x 553.6e6 / 12.5e9 = 0.17715 s; one shard on one node's NIC.
  CHECK(analytic_comm_s(553.6e6, p) == Approx(0.177152).epsilon(1e-6));
  // Two shards halve the bytes each NIC carries: 2 x 2 x 276.8e6 / 12.5e9 = 0.088576 s.
  p.ps = 2;
  CHECK(analytic_comm_s(553.6e6, p) == Approx(0.088576).epsilon(1e-6));
  // All on one node, no NIC: each replica's own PCIe link carries M per phase,
  // 553.6e6 / 15.76e9 = 0.0351269 s; but the shard in host memory takes all 4 replicas' M
  // through the host's PCIe link: 4 x 553.6e6 / 15.76e9 = 0.1405076 s a phase, 0.2810152 s.
  ScalingPlacement local = ring(4, 1);
  local.ps = 1;
  CHECK(analytic_comm_s(553.6e6, local) == Approx(2 * 0.0351269).epsilon(1e-5));
  const std::uint32_t one_node[] = {4};
  const std::uint32_t one_shard[] = {1};
  local.ps_host_units = ps_host_units(one_node, one_shard);
  CHECK(local.ps_host_units == 4);
  CHECK(analytic_comm_s(553.6e6, local) == Approx(0.2810152).epsilon(1e-6));
  // Two shards on that node halve each shard's bytes, not the host link's: 2 x 4 units of
  // M/2 = 4 M a phase, the same 0.2810152 s.
  const std::uint32_t two_shards[] = {2};
  local.ps = 2;
  local.ps_host_units = ps_host_units(one_node, two_shards);
  CHECK(local.ps_host_units == 8);
  CHECK(analytic_comm_s(553.6e6, local) == Approx(0.2810152).epsilon(1e-6));
  // Over two nodes (2 + 2 replicas, 1 shard on node 0): host units max(2 x 1, 2 x 0) = 2,
  // 2 x 553.6e6 / 15.76e9 = 0.0702538 s a phase, under the NIC's 0.088576: the NIC decides.
  CHECK(ps_host_units(r, k1) == 2);
}

// The parameter server's own incoming traffic inside a node: VGG-16, 8 workers and 1 shard on
// one 8-GPU node. The shard takes 8 x 553.6e6 = 4.4288e9 bytes a phase through the host's
// PCIe link: 0.2810152 s, comm 0.5620305 s for push and pull. exposed = 0.15 x 0.5620305 +
// (0.85 x 0.5620305 - 2/3 x 0.140) = 0.0843046 + 0.3843926 = 0.4686972; step 0.6086972 s, a
// speedup of 8 x 0.14 / 0.6086972 = 1.84 (without the host term: comm 2 x 0.0351269, step
// 0.1505381, 7.44). 1000 iterations take 608.6972 s.
TEST_CASE("analytic scaling: a PS shard's own node sends it every local replica's gradients",
          "[scaling][ps]") {
  const std::string csv = "id,submit_s,workers,iterations,model,ps\na,0,8,1000,vgg16,1\n";
  Cluster c = cluster_from_yaml(kTwoNodes8);
  Workload w = workload_from_csv(c, csv);
  RunOutput out = run_policy("fifo", c, w, analytic(), "consolidate");
  CHECK(out.state.jobs[0].nodes_used == 1);
  CHECK(to_seconds(out.state.jobs[0].end) == Approx(608.6972).margin(1e-3));
}

TEST_CASE("analytic scaling: a run's time depends on placement without network contention",
          "[scaling]") {
  // An 8-worker vgg16 job of 1000 iterations. Consolidated on node 0 of kTwoNodes8: step
  // 0.1493006 s (above), 149.3006 s. Spread over kEightNodes2 one per node ("spread"): 8
  // replicas on 8 nodes, comm = 1.75 x 553.6e6 / 12.5e9 = 0.077504, exposed 0.0116256, latency
  // 14 x 9.6e-6 = 0.0001344, step 0.15176, 151.76 s. Linear scaling gives 140 s for both.
  const std::string csv = "id,submit_s,workers,iterations,model\na,0,8,1000,vgg16\n";
  Cluster one = cluster_from_yaml(kTwoNodes8);
  Workload w1 = workload_from_csv(one, csv);
  RunOutput cons = run_policy("fifo", one, w1, analytic(), "consolidate");
  CHECK(cons.state.jobs[0].nodes_used == 1);
  CHECK(to_seconds(cons.state.jobs[0].end) == Approx(149.3006).margin(1e-4));
  Cluster eight = cluster_from_yaml(kEightNodes2);
  Workload w8 = workload_from_csv(eight, csv);
  RunOutput spread = run_policy("fifo", eight, w8, analytic(), "spread");
  CHECK(spread.state.jobs[0].nodes_used == 8);
  CHECK(to_seconds(spread.state.jobs[0].end) == Approx(151.7600).margin(1e-4));
  RunOutput linear = run_policy("fifo", eight, w8, RuntimeConfig{}, "spread");
  CHECK(linear.state.jobs[0].end == 140'000'000);
  // A model-less job has no bytes to exchange: linear under either setting.
  Workload plain = workload_from_csv(eight, "id,submit_s,workers,duration_s\nb,0,8,100\n");
  CHECK(run_policy("fifo", eight, plain, analytic(), "spread").state.jobs[0].end == 100'000'000);
}

TEST_CASE("analytic scaling: fewer workers than requested take proportionally longer steps",
          "[scaling]") {
  // A 16-worker resnet50 request of 1000 iterations given its 16 workers on two 8-GPU nodes:
  // 1000 x 0.13136 = 131.36 s (the 16-worker step above; rate = 16 / (16 x step)).
  Cluster c = cluster_from_yaml(kTwoNodes8);
  Workload w = workload_from_csv(c, "id,submit_s,workers,iterations,model\na,0,16,1000,resnet50\n");
  RunOutput r = run_policy("fifo", c, w, analytic());
  CHECK(to_seconds(r.state.jobs[0].end) == Approx(131.36).margin(1e-4));
}

// The step latencies are the node group's keys: with ring_step_us 100 and nic_ring_step_us 1000,
// a 16-worker resnet50 request of 1000 iterations on two 8-GPU nodes steps in 0.128 + 0.003072
// (above) + 30 x 1e-3 = 0.161072 s: 161.072 s; 8 workers on one node in 0.1302741 (above) +
// 14 x 100e-6 = 0.1316741 s: 131.6741 s.
TEST_CASE("analytic scaling: the ring's step latencies are cluster keys", "[scaling]") {
  Cluster c = cluster_from_yaml(
      "nodes:\n  - {count: 2, devices: {V100: 8}, ring_step_us: 100, nic_ring_step_us: 1000}\n");
  Workload w16 =
      workload_from_csv(c, "id,submit_s,workers,iterations,model\na,0,16,1000,resnet50\n");
  CHECK(to_seconds(run_policy("fifo", c, w16, analytic()).state.jobs[0].end) ==
        Approx(161.072).margin(1e-4));
  Workload w8 = workload_from_csv(c, "id,submit_s,workers,iterations,model\na,0,8,1000,resnet50\n");
  RunOutput one = run_policy("fifo", c, w8, analytic(), "consolidate");
  CHECK(one.state.jobs[0].nodes_used == 1);
  CHECK(to_seconds(one.state.jobs[0].end) == Approx(131.6741).margin(1e-4));
  // A negative latency is an error naming the key; so is one that is not a number (.inf).
  auto message = [](const char* value) {
    try {
      cluster_from_yaml(std::string("nodes:\n  - {count: 1, devices: {V100: 8}, ring_step_us: ") +
                        value + "}\n");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message("-1"),
             Catch::Contains("nodes.0.ring_step_us: must be finite and not negative, got -1"));
  CHECK_THAT(message(".inf"), Catch::Contains("nodes.0.ring_step_us: expected a number"));
}

TEST_CASE("runtime.scaling is a checked experiment key", "[scaling][errors]") {
  ScratchDir dir;
  Outcome bad = run_dlsim(
      "run --experiment configs/experiments/default.yaml --set runtime.scaling=cubic --out " +
          dir.file("o"),
      dir);
  CHECK(bad.code == 1);
  CHECK_THAT(bad.err, Catch::Contains("runtime.scaling"));
  CHECK_THAT(bad.err, Catch::Contains("linear"));
}
