// The CPU side of a parameter-server step (docs/scaling.md#cpu-cores-of-ps-and-
// workers): CPU cores per PS and per worker change the update and copy times, worked by hand.
#include "sim/runtime/scaling_model.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// One 8-V100 node without NVLink: PCIe gen3 x16 = 15.76 GB/s inside it (docs/cluster.md).
constexpr const char* kOneNode8 = "nodes:\n  - {count: 1, devices: {V100: 8}}\n";

RuntimeConfig analytic() {
  RuntimeConfig c;
  c.scaling = "analytic";
  return c;
}

} // namespace

TEST_CASE("CPU cores per PS and per worker: the update and copy times by hand", "[scaling][cpu]") {
  // A core moves 6 x 2666e6 x 8 / 20 = 6.3984e9 bytes/s (a Xeon Gold 6148's 6 DDR4-2666
  // channels over its 20 cores).
  CHECK(kCoreMemoryBytesS == Approx(6.3984e9));
  // ResNet-50, M = 102.4e6 bytes; 2 replicas (one per worker), 1 shard with 2 cores: the shard
  // sums 2 gradients and reads and writes its parameters and momentum, (2 + 4) x 102.4e6 =
  // 614.4e6 bytes over 2 cores: 614.4e6 / 12.7968e9 = 0.0480120 s. Each worker (4 cores) copies
  // its gradient out and the parameters in, 2 x 102.4e6 / (4 x 6.3984e9) = 0.0080020 s.
  ScalingPlacement p;
  p.replicas = 2;
  p.ps = 1;
  p.ps_cores = 2;
  p.worker_cores = 4;
  CHECK(ps_cpu_s(102.4e6, p) == Approx(0.0480120 + 0.0080020).epsilon(1e-6));
  // Two shards halve each shard's bytes; no cpus_per_worker: no copy term.
  p.ps = 2;
  p.worker_cores = 0;
  CHECK(ps_cpu_s(102.4e6, p) == Approx(0.0240060).epsilon(1e-6));
  // No cores given (ps_cpus 0) or a ring job: not modelled.
  p.ps_cores = 0;
  CHECK(ps_cpu_s(102.4e6, p) == 0);
  p.ps_cores = 2;
  p.ps = 0;
  CHECK(ps_cpu_s(102.4e6, p) == 0);
}

TEST_CASE("ps_cpus slows a PS job's steps under analytic scaling", "[scaling][cpu]") {
  // 2 workers of 1 V100 on one node, 1 PS, ResNet-50 (0.128 s per iteration, overlap 0.8),
  // 1000 iterations. The network part: all on one node, the shard in host memory takes both
  // replicas' M through the host's PCIe link each phase: 2 x 2 x 102.4e6 / 15.76e9 = 0.0259898 s.
  // ps_cpus 2, cpus_per_worker 4: + 0.0480120 + 0.0080020 (above): comm 0.0820038; exposed
  // 0.2 x comm + max(0, 0.8 x comm - 2/3 x 0.128) = 0.0164008 + 0; step 0.1444008: 144.4008 s.
  // No ps_cpus: comm 0.0259898, exposed 0.0051980, step 0.1331980: 133.1980 s.
  // ps_cpus 1, no cpus_per_worker: update 614.4e6 / 6.3984e9 = 0.0960240; comm 0.1220138;
  // exposed 0.0244028 + (0.0976110 - 0.0853333) = 0.0366805; step 0.1646805: 164.6805 s.
  Cluster c = cluster_from_yaml(kOneNode8);
  auto end = [&](const std::string& extra_header, const std::string& extra) {
    Workload w = workload_from_csv(c, "id,submit_s,workers,iterations,model,ps" + extra_header +
                                          "\na,0,2,1000,resnet50,1" + extra + "\n");
    return to_seconds(run_policy("fifo", c, w, analytic()).state.jobs[0].end);
  };
  CHECK(end(",ps_cpus,cpus_per_worker", ",2,4") == Approx(144.4008).margin(1e-3));
  CHECK(end("", "") == Approx(133.1980).margin(1e-3));
  CHECK(end(",ps_cpus", ",1") == Approx(164.6805).margin(1e-3));
  // Under linear scaling (the default) nothing changes: 1000 x 0.128 = 128 s.
  Workload w = workload_from_csv(
      c, "id,submit_s,workers,iterations,model,ps,ps_cpus\na,0,2,1000,resnet50,1,2\n");
  CHECK(run_policy("fifo", c, w).state.jobs[0].end == 128'000'000);
}

TEST_CASE("bad ps_cpus is an error naming the file, line and column", "[scaling][cpu][errors]") {
  ScratchDir dir;
  const std::string cluster =
      dir.write("c.yaml", "nodes:\n  - count: 1\n    devices: {V100: 4}\n    cpu_cores: 16\n");
  auto err = [&](const std::string& csv) {
    return run_dlsim("validate --trace " + dir.write("t.csv", csv) + " --cluster " + cluster, dir)
        .err;
  };
  const std::string head = "id,submit_s,workers,iterations,model,ps,ps_cpus\n";
  CHECK_THAT(err(head + "a,0,1,100,resnet50,0,2\n"),
             Catch::Contains("t.csv:2: ps_cpus: a job without parameter servers (ps 0) has none"));
  CHECK_THAT(err(head + "a,0,1,100,resnet50,1,-1\n"),
             Catch::Contains("t.csv:2: ps_cpus: must be whole CPU cores from 0 to 1024, got -1"));
  CHECK_THAT(err(head + "a,0,1,100,resnet50,1,2.5\n"), Catch::Contains("t.csv:2: ps_cpus:"));
  CHECK_THAT(err(head + "a,0,1,100,resnet50,1,32\n"),
             Catch::Contains("t.csv:2: ps_cpus: job 'a': 1 parameter server(s) of 32 CPU cores "
                             "on 1 worker(s): a worker's node holds 1 of them, 32 cores with the "
                             "worker's 0; the largest node has 16 (1 node(s) in the cluster)"));
}
