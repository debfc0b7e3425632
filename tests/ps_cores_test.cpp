// Parameter servers that hold CPU cores on nodes, and changes of a running job's cores
// (docs/scaling.md#parameter-servers-that-hold-cores, docs/runtime.md#cpu-resize). Every
// expected number is worked out in the comment above it.
#include "policies/registry.h"
#include "sim/engine/error.h"
#include "sim/runtime/ps_placement.h"
#include "tests/support/scripted_run.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// Two nodes of 4 V100 and 16 cores each: devices 0-3 on node 0, 4-7 on node 1.
constexpr const char* kTwoNodes16 = "nodes:\n  - {count: 2, devices: {V100: 4}, cpu_cores: 16}\n";
// One node of 4 V100 and 8 cores.
constexpr const char* kOneNode8Cores = "nodes:\n  - {count: 1, devices: {V100: 4}, cpu_cores: 8}\n";
// One 8-V100 node without NVLink (64 cores by default: 8 per device).
constexpr const char* kOneNode8 = "nodes:\n  - {count: 1, devices: {V100: 8}}\n";

std::string refusal(ScriptedRun& s) {
  try {
    s.run();
  } catch (const ActionError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("parameter servers hold cores on their workers' nodes while the job runs", "[ps_cores]") {
  // Job a: 2 workers of 1 V100 with 2 cores each, 2 PS shards of 3 cores, 1000 resnet50
  // iterations (0.128 s each on 2 workers at linear scaling: 128 s). Started on devices 0 (node
  // 0) and 4 (node 1): shard 0 with worker 0 on node 0, shard 1 with worker 1 on node 1. Each
  // node holds 2 + 3 = 5 cores: 16 - 5 = 11 free. set_ps(1) at 10 s: shard 1 goes, node 1 gets its
  // 3 cores back (14 free), node 0 keeps 11.
  double at5[2] = {0, 0};
  double at11[2] = {0, 0};
  std::vector<NodeId> hosts_at5;
  ScriptedRun s(kTwoNodes16,
                "id,submit_s,workers,iterations,model,ps,ps_cpus,cpus_per_worker\n"
                "a,0,2,1000,resnet50,2,3,2\n",
                {{0,
                  [](Control& c) {
                    c.start(0, std::vector<DeviceId>{0, 4});
                  }},
                 {5'000'000,
                  [&](Control& c) {
                    at5[0] = c.node_cpu_free(0);
                    at5[1] = c.node_cpu_free(1);
                    hosts_at5.assign(c.ps_hosts(0).begin(), c.ps_hosts(0).end());
                    c.set_ps(0, 1);
                  }},
                 {11'000'000, [&](Control& c) {
                    at11[0] = c.node_cpu_free(0);
                    at11[1] = c.node_cpu_free(1);
                  }}});
  s.run();
  CHECK(at5[0] == 11);
  CHECK(at5[1] == 11);
  CHECK(hosts_at5 == std::vector<NodeId>{0, 1});
  CHECK(at11[0] == 11);
  CHECK(at11[1] == 14);
  // Finished: everything back.
  CHECK(s.sim->state().node_cpu_free[0] == 16);
  CHECK(s.sim->state().node_cpu_free[1] == 16);
  CHECK(s.sim->state().ps_hosts_of(0).empty());
  CHECK(s.sim->state().ps_hosts_of(0).empty());
}

TEST_CASE("more shards than nodes stack on the workers' nodes", "[ps_cores]") {
  // 1 worker (2 cores) and 3 shards of 2 cores on a cluster of 2 nodes: shard s with worker
  // s mod 1 = 0, all three on node 0: 2 + 3 x 2 = 8 of its 16 cores, 8 free; node 1 untouched.
  std::vector<NodeId> hosts;
  double free0 = 0, free1 = 0;
  ScriptedRun s(kTwoNodes16,
                "id,submit_s,workers,iterations,model,ps,ps_cpus,cpus_per_worker\n"
                "a,0,1,100,resnet50,3,2,2\n",
                {{0, [](Control& c) { c.start(0, std::vector<DeviceId>{1}); }},
                 {1'000'000, [&](Control& c) {
                    hosts.assign(c.ps_hosts(0).begin(), c.ps_hosts(0).end());
                    free0 = c.node_cpu_free(0);
                    free1 = c.node_cpu_free(1);
                  }}});
  s.run();
  CHECK(hosts == std::vector<NodeId>{0, 0, 0});
  CHECK(free0 == 8);
  CHECK(free1 == 16);
}

TEST_CASE("a job whose parameter servers cannot be placed waits", "[ps_cores]") {
  // One node of 8 cores. a: 1 worker of 4 cores, 1000 resnet50 iterations, 0 to 128 s. b: 1
  // worker of 2 cores and 1 PS of 4: 6 cores, only 4 free while a runs; its GPU is free, but
  // place() finds no placement for its shard, so b waits (no refused start) and starts when a
  // ends at 128 s: 128 + 1000 x 0.128 = 256 s. The same under a preemptive pass (tiresias).
  Cluster c = cluster_from_yaml(kOneNode8Cores);
  Workload w = workload_from_csv(c, "id,submit_s,workers,iterations,model,ps,ps_cpus,"
                                    "cpus_per_worker\n"
                                    "a,0,1,1000,resnet50,0,0,4\n"
                                    "b,0,1,1000,resnet50,1,4,2\n");
  for (const char* policy : {"fifo", "tiresias", "optimus"}) {
    INFO(policy);
    RunOutput out = run_policy(policy, c, w);
    CHECK(to_seconds(out.state.jobs[1].first_start) == Approx(128).margin(1e-6));
    CHECK(to_seconds(out.state.jobs[1].end) == Approx(256).margin(1e-6));
  }
  RunOutput out = run_policy(find_policy("aiturbo"), c, w, YAML::Load("{classifier: ''}"));
  CHECK(to_seconds(out.state.jobs[1].first_start) == Approx(128).margin(1e-6));
  // A start that ignores the shard is refused, naming the node and the cores.
  ScriptedRun s(kOneNode8Cores,
                "id,submit_s,workers,iterations,model,ps,ps_cpus,cpus_per_worker\n"
                "a,0,1,1000,resnet50,0,0,4\nb,0,1,1000,resnet50,1,4,2\n",
                {{0, [](Control& ctl) { ctl.start(0, std::vector<DeviceId>{0}); }},
                 {1'000'000, [](Control& ctl) { ctl.start(1, std::vector<DeviceId>{1}); }}});
  CHECK_THAT(refusal(s), Catch::Contains("start refused at t=1s: node 0 has 4 free CPU cores, 6 "
                                         "needed by the job's workers (2 each) and parameter "
                                         "servers (4 each)"));
}

TEST_CASE("set_cpus: more PS cores speed a job up after a TensorFlow restart",
          "[ps_cores][cpu_resize]") {
  // Analytic scaling, 2 workers of 1 V100 on one node, 1 PS of 1 core, 1000 resnet50 iterations
  // (tests/cpu_phases_test.cpp): step 0.1646805 s with 1 PS core. With 2: update (2 + 4) x
  // 102.4e6 / (2 x 6.3984e9) = 0.0480120, comm 0.0259898 + 0.0480120 = 0.0740018, exposed
  // 0.2 x comm + max(0, 0.8 x comm - 0.0853333) = 0.0148004: step 0.1428004 s.
  // set_cpus(2, 0) at 10 s: 10 / 0.1646805 = 60.723638 done, 939.276362 left; the restart costs
  // restart_s 30 + 2 x 2 x 102.4e6 / 1e9 = 30.4096 s (whatever runtime.resize says: flat here);
  // then 939.276362 x 0.1428004 = 134.129012 s: ends at 174.538612 s. The node's 64 cores: 63
  // free before, 62 after.
  RuntimeConfig cfg;
  cfg.scaling = "analytic";
  double before = 0, after = 0;
  ScriptedRun s(kOneNode8,
                "id,submit_s,workers,iterations,model,ps,ps_cpus\na,0,2,1000,resnet50,1,1\n",
                {{0, [](Control& c) { c.start(0, device_range(0, 2)); }},
                 {10'000'000,
                  [&](Control& c) {
                    before = c.node_cpu_free(0);
                    c.set_cpus(0, 2, 0);
                    after = c.node_cpu_free(0);
                  }}},
                cfg);
  s.run();
  CHECK(before == 63);
  CHECK(after == 62);
  CHECK(s.end_s() == Approx(174.538612).margin(1e-3));
  CHECK(s.job("a").resizes == 1);
  // Unchanged it takes 1000 x 0.1646805 = 164.6805 s (tests/cpu_phases_test.cpp).
  ScriptedRun same(kOneNode8,
                   "id,submit_s,workers,iterations,model,ps,ps_cpus\na,0,2,1000,resnet50,1,1\n",
                   {{0, [](Control& c) { c.start(0, device_range(0, 2)); }}}, cfg);
  same.run();
  CHECK(same.end_s() == Approx(164.6805).margin(1e-3));
}

TEST_CASE("set_cpus refuses what it cannot do, naming why", "[ps_cores][cpu_resize][errors]") {
  const std::string ps_job = "id,submit_s,workers,iterations,model,ps,ps_cpus,cpus_per_worker\n"
                             "a,0,1,1000,resnet50,1,2,2\n";
  auto refused = [&](const std::string& csv, double ps_cores, double worker_cores) {
    ScriptedRun s(kOneNode8Cores, csv,
                  {{0, [](Control& c) { c.start(0, std::vector<DeviceId>{0}); }},
                   {10'000'000, [=](Control& c) { c.set_cpus(0, ps_cores, worker_cores); }}});
    return refusal(s);
  };
  // Below the request: the policies' own ledgers count the request's cores.
  CHECK_THAT(refused(ps_job, 1, 2),
             Catch::Contains("set_cpus refused at t=10s: cores per parameter server must be from "
                             "the request's 2 to 1024, got 1"));
  CHECK_THAT(refused(ps_job, 2, 1),
             Catch::Contains("cores per worker must be from the request's 2"));
  // The node has 8 cores, 4 held: a PS of 7 needs 2 + 7 = 9 of the 8 given back.
  CHECK_THAT(refused(ps_job, 7, 2),
             Catch::Contains("node 0 has 8 free CPU cores, 9 needed by the job's workers (2 each) "
                             "and parameter servers (7 each)"));
  CHECK_THAT(refused(ps_job, 2, 2), Catch::Contains("the cores asked for are the job's now"));
  // A job whose request gives no ps_cpus has no PS cores to change.
  CHECK_THAT(refused("id,submit_s,workers,iterations,model,cpus_per_worker\na,0,1,1000,resnet50,"
                     "2\n",
                     1, 2),
             Catch::Contains("its request gives no ps_cpus"));
  // But its workers' cores may grow: 2 -> 6 of 8.
  ScriptedRun ok(kOneNode8Cores,
                 "id,submit_s,workers,iterations,model,cpus_per_worker\na,0,1,1000,resnet50,2\n",
                 {{0, [](Control& c) { c.start(0, std::vector<DeviceId>{0}); }},
                  {10'000'000, [](Control& c) { c.set_cpus(0, 0, 6); }},
                  {20'000'000, [](Control& c) { CHECK(c.node_cpu_free(0) == 2); }}});
  ok.run();
  CHECK(ok.sim->state().worker_cores(0) == 6);
}

TEST_CASE("impossible parameter-server shapes are trace errors naming file and line",
          "[ps_cores][errors]") {
  ScratchDir dir;
  const std::string two =
      dir.write("c2.yaml", "nodes:\n  - count: 2\n    devices: {V100: 4}\n    cpu_cores: 16\n");
  const std::string three =
      dir.write("c3.yaml", "nodes:\n  - count: 3\n    devices: {V100: 4}\n    cpu_cores: 16\n");
  auto err = [&](const std::string& csv, const std::string& cluster) {
    return run_dlsim("validate --trace " + dir.write("t.csv", csv) + " --cluster " + cluster, dir)
        .err;
  };
  const std::string head = "id,submit_s,workers,iterations,model,ps,ps_cpus,cpus_per_worker\n";
  // 0 workers.
  CHECK_THAT(err(head + "a,0,0,100,resnet50,1,2,0\n", two),
             Catch::Contains("t.csv:2: workers: must be at least 1, got 0"));
  // PS > nodes that cannot stack: 3 shards of 8 cores with 1 worker put all 3 on its node, 24
  // cores; a node has 16.
  CHECK_THAT(err(head + "a,0,1,100,resnet50,3,8,0\n", two),
             Catch::Contains("t.csv:2: ps_cpus: job 'a': 3 parameter server(s) of 8 CPU cores on 1 "
                             "worker(s): a worker's node holds 3 of them, 24 cores with the "
                             "worker's 0; the largest node has 16 (2 node(s) in the cluster)"));
  // A shape no node set holds: 4 workers of 6 cores and 4 shards of 8, one per worker: 14 cores
  // a node, but 4 x 6 + 4 x 8 = 56 in all, and 3 nodes have 48.
  CHECK_THAT(err(head + "a,0,4,100,resnet50,4,8,6\n", three),
             Catch::Contains("t.csv:2: ps_cpus: job 'a': 4 workers of 6 CPU cores and 4 parameter "
                             "servers of 8 need 56 cores; the cluster has 48"));
  // PS > nodes that fits: 3 shards of 2 with 1 worker, 6 cores on one node: no error.
  CHECK(run_dlsim("validate --trace " + dir.write("t.csv", head + "a,0,1,100,resnet50,3,2,0\n") +
                      " --cluster " + two,
                  dir)
            .code == 0);
}

TEST_CASE("timeseries.csv's held_core_util counts workers' and parameter servers' cores",
          "[ps_cores][outputs]") {
  // Two nodes of 16 cores: 32. a: 2 workers of 2 cores and 2 PS shards of 3, 1000 resnet50
  // iterations (0 to 128 s under fifo): 2 x 2 + 2 x 3 = 10 cores held, 10 / 32 = 0.3125, in every
  // row until it ends (rows at 0 and at 120 s, the run's last grid time).
  ScratchDir dir;
  dir.write("c.yaml", "nodes:\n  - {count: 2, devices: {V100: 4}, cpu_cores: 16}\n");
  dir.write("t.csv", "id,submit_s,workers,iterations,model,ps,ps_cpus,cpus_per_worker\n"
                     "a,0,2,1000,resnet50,2,3,2\n");
  Outcome r = run_dlsim("run -q --policy fifo --cluster " + dir.file("c.yaml") + " --trace " +
                            dir.file("t.csv") + " --out " + dir.file("res"),
                        dir);
  REQUIRE(r.code == 0);
  const std::string ts = read_file(dir.file("res/timeseries.csv"));
  CHECK_THAT(ts, Catch::StartsWith("time_s,") &&
                     Catch::Contains(",held_core_util,busy_gpu_util\n0,1,0,2,"));
  // held_core_util, then busy_gpu_util: 2 of 8 GPUs at resnet50's 0.9 = 0.225.
  CHECK_THAT(ts, Catch::EndsWith(",0.3125,0.225\n"));
}

TEST_CASE("a job's shards' nodes and set_cpus' cores are kept aside through suspend and resume",
          "[ps_cores]") {
  // SimState keeps a PS job's shards' nodes and the cores set_cpus gave it aside (sim_state.h),
  // not in JobState. Job a as above: 2 workers of 2 cores, 2 shards of 3 cores, on devices 0
  // (node 0) and 4 (node 1). set_cpus(4, 3) at 5 s: each node holds 3 + 4 = 7 cores, 9 free.
  // Suspended at 100 s (5 s to checkpoint): nothing held, 16 free, the cores it was given still
  // read back until it is placed again. Resumed at 110 s on the same devices: the request's
  // cores again, 2 + 3 = 5 per node, 11 free, and the shards on nodes 0 and 1 once more.
  struct Seen {
    std::vector<NodeId> hosts;
    double ps_cores = -1, worker_cores = -1, free0 = -1, free1 = -1;
  };
  Seen at100, at110, at120;
  auto see = [](const Control& c, Seen& out) {
    out.hosts.assign(c.ps_hosts(0).begin(), c.ps_hosts(0).end());
    out.ps_cores = c.ps_cores(0);
    out.worker_cores = c.worker_cores(0);
    out.free0 = c.node_cpu_free(0);
    out.free1 = c.node_cpu_free(1);
  };
  ScriptedRun s(kTwoNodes16,
                "id,submit_s,workers,iterations,model,ps,ps_cpus,cpus_per_worker\n"
                "a,0,2,1000,resnet50,2,3,2\n",
                {{0,
                  [](Control& c) {
                    c.start(0, std::vector<DeviceId>{0, 4});
                  }},
                 {5'000'000, [](Control& c) { c.set_cpus(0, 4, 3); }},
                 {100'000'000,
                  [&](Control& c) {
                    see(c, at100);
                    c.suspend(0);
                  }},
                 {110'000'000,
                  [&](Control& c) {
                    see(c, at110);
                    c.resume(0, std::vector<DeviceId>{0, 4});
                  }},
                 {120'000'000, [&](Control& c) { see(c, at120); }}});
  s.run();
  CHECK(at100.hosts == std::vector<NodeId>{0, 1});
  CHECK(at100.ps_cores == 4);
  CHECK(at100.worker_cores == 3);
  CHECK(at100.free0 == 9);
  CHECK(at100.free1 == 9);
  CHECK(at110.hosts.empty());
  CHECK(at110.ps_cores == 4);
  CHECK(at110.worker_cores == 3);
  CHECK(at110.free0 == 16);
  CHECK(at110.free1 == 16);
  CHECK(at120.hosts == std::vector<NodeId>{0, 1});
  CHECK(at120.ps_cores == 3);
  CHECK(at120.worker_cores == 2);
  CHECK(at120.free0 == 11);
  CHECK(at120.free1 == 11);
  CHECK(s.job("a").status == JobStatus::kFinished);
  CHECK(s.sim->state().ps_hosts_of(0).empty());
}
