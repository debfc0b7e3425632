// hot-spares (policies/hot_spares.cpp): a failed gang restarts at once on a spare node, ahead of
// the queue; waiting jobs never take a spare; a repaired node refills the pool; a job larger
// than the nodes outside the pool may use the spares.
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace {

double end_s(const RunOutput& out, const Workload& w, const std::string& name) {
  return to_seconds(out.state.jobs[job_named(w, name)].end);
}

double start_s(const RunOutput& out, const Workload& w, const std::string& name) {
  return to_seconds(out.state.jobs[job_named(w, name)].first_start);
}

RuntimeConfig node1_fails() {
  RuntimeConfig cfg;
  cfg.failures.enabled = true;
  cfg.costs.restart_s = 30; // no checkpoints and no model: a restart is 30 s
  // node:1 (the component after the 24 devices) fails at 1,000 s for 300 s.
  cfg.failures.log = {FailureRecord{from_seconds(1000), 24 + 1, from_seconds(300)}};
  return cfg;
}

} // namespace

TEST_CASE("hot-spares restarts a failed gang on the spare at once, fifo waits for the repair",
          "[failures][hot-spares]") {
  // Three 8-V100 nodes; node 2 is the spare. A (2 nodes) starts on nodes 0-1, B (1 node) waits:
  // the nodes outside the pool are busy.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 3, devices: {V100: 8}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                    "A,0,2,8,3600\nB,10,1,8,3600\nC,2000,1,8,3600\n");
  YAML::Node params;
  params["spare_nodes"] = 1;
  RunOutput spares = run_policy(find_policy("hot-spares"), c, w, params, node1_fails());
  // Node 1 fails at 1,000: A loses its 1,000 s (no checkpoint) and restarts at once on node 0
  // and the spare node 2, 1,000-1,030, then runs 3,600 s: ends at 4,630. At 1,300 node 1 comes
  // back and refills the pool, so B (and C behind it) wait for A's nodes: both run 4,630-8,230,
  // and node 1 stays idle.
  CHECK(end_s(spares, w, "A") == 4630);
  CHECK(start_s(spares, w, "B") == 4630);
  CHECK(end_s(spares, w, "B") == 8230);
  CHECK(end_s(spares, w, "C") == 8230);
  CHECK(spares.state.failures.jobs[job_named(w, "A")].failures == 1);
  CHECK(to_seconds(spares.state.failures.jobs[job_named(w, "A")].lost) == 1000);

  RunOutput fifo = run_policy("fifo", c, w, node1_fails());
  // fifo has no pool: B runs on node 2 from 10 to 3,610. A, failed at 1,000, finds only node 0
  // free and waits for the repair at 1,300: restarts 1,300-1,330 and ends at 4,930. C starts
  // at 3,610 when B ends (node 1 busy with A from 1,300): ends 7,210.
  CHECK(end_s(fifo, w, "B") == 3610);
  CHECK(end_s(fifo, w, "A") == 4930);
  CHECK(end_s(fifo, w, "C") == 7210);
}

TEST_CASE("hot-spares lets a job larger than the nodes outside the pool use the spares",
          "[hot-spares]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 3, devices: {V100: 8}}\n");
  // 24 GPUs: more than the 16 outside the one-node pool, so it takes all three nodes at 0.
  // Then S (8 GPUs) waits for it: the pool is kept for restarts.
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                    "D,0,3,8,3600\nS,0,1,8,100\n");
  YAML::Node params;
  params["spare_nodes"] = 1;
  RunOutput out = run_policy(find_policy("hot-spares"), c, w, params);
  CHECK(end_s(out, w, "D") == 3600);
  CHECK(end_s(out, w, "S") == 3700);
}

TEST_CASE("hot-spares keeps its pool from waiting jobs, and refuses a pool of every node",
          "[hot-spares]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 4, devices: {V100: 8}}\n");
  // spare_fraction 0.5 of 4 nodes: 2 spares (nodes 2-3). Four 1-node jobs: two run at 0 on
  // nodes 0-1, two wait until 100.
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                    "a,0,1,8,100\nb,0,1,8,100\nc,0,1,8,100\nd,0,1,8,100\n");
  YAML::Node params;
  params["spare_fraction"] = 0.5;
  RunOutput out = run_policy(find_policy("hot-spares"), c, w, params);
  CHECK(end_s(out, w, "a") == 100);
  CHECK(end_s(out, w, "b") == 100);
  CHECK(end_s(out, w, "c") == 200);
  CHECK(end_s(out, w, "d") == 200);
  // A pool of every node is refused when the run is set up, naming the key and the most the
  // cluster allows (4 nodes: 3 spares); so is a fraction that rounds up to every node (0.5 of
  // one node: 1).
  YAML::Node all;
  all["spare_nodes"] = 4;
  CHECK_THROWS_WITH(run_policy(find_policy("hot-spares"), c, w, all),
                    "policy.params.spare_nodes: holding 4 of the cluster's 4 nodes as spares "
                    "leaves none to run jobs on; at most 3");
  YAML::Node three;
  three["spare_nodes"] = 3;
  RunOutput one = run_policy(find_policy("hot-spares"), c, w, three);
  // 3 spares: the four jobs run in turn on node 0, ending at 100, 200, 300 and 400.
  CHECK(end_s(one, w, "a") == 100);
  CHECK(end_s(one, w, "d") == 400);
  Cluster single = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 8}}\n");
  Workload w1 = workload_from_csv(single, "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                          "a,0,1,8,100\n");
  YAML::Node half;
  half["spare_nodes"] = 0;
  half["spare_fraction"] = 0.5;
  CHECK_THROWS_WITH(
      run_policy(find_policy("hot-spares"), single, w1, half),
      Catch::Contains("policy.params.spare_fraction: holding 1 of the cluster's 1 nodes"));
}
