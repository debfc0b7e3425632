// Jobs that name no device type: which GPU type they get, and device memory as a hard limit.
#include "support/harness.h"

#include "sim/engine/error.h"
#include "workloads/build_workload.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace {

double end_s(const RunOutput& out, const Workload& w, const std::string& name) {
  return to_seconds(out.state.jobs[job_named(w, name)].end);
}

} // namespace

TEST_CASE("a job that names no GPU type gets the fastest type free, not the first in the catalog",
          "[runtime][placement]") {
  // K80 comes before V100 in the catalog. No model: 100 s on the reference V100, 100 / 0.16 =
  // 625 s on a K80 (rel_throughput 0.16). FIFO with both jobs submitted at 0: a takes the V100
  // (ends at 100), b the K80 (ends at 625). Catalog order would give a the K80 instead.
  Cluster c = cluster_from_yaml(
      "nodes:\n  - {count: 1, devices: {K80: 1}}\n  - {count: 1, devices: {V100: 1}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\na,0,1,100\nb,0,1,100\n");
  RunOutput out = run_policy("fifo", c, w);
  CHECK(end_s(out, w, "a") == 100);
  CHECK(end_s(out, w, "b") == 625);
}

TEST_CASE("the fastest type is judged per model from the zoo's measured iteration times",
          "[runtime][placement]") {
  // resnet50 has measured times on P100 and V100 (configs/models/zoo.yaml): V100 is faster, so
  // a resnet50 job given the choice takes the V100 and runs its 1000 reference seconds there.
  Cluster c = cluster_from_yaml(
      "nodes:\n  - {count: 1, devices: {P100: 1}}\n  - {count: 1, devices: {V100: 1}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,model\nr,0,1,1000,resnet50\n");
  RunOutput out = run_policy("fifo", c, w);
  CHECK(end_s(out, w, "r") == Approx(1000).epsilon(1e-9));
}

TEST_CASE("a GPU type too small for a job's model is never used for it", "[runtime][memory]") {
  // Tiny: a fast GPU type (rel_throughput 2) with 4 GB. resnet50 needs 5.0 GB per device (zoo), so
  // it must run on the V100 (1000 s) even though the Tiny is idle and faster; resnet18 (1.5 GB)
  // fits the Tiny and runs 1000 x t_Tiny / t_V100 = 1000 / 2 = 500 s there (no measurement for
  // Tiny: the zoo's V100 time scaled by relative throughput).
  Cluster c = cluster_from_yaml(
      "device_types:\n  Tiny: {kind: gpu, memory_gb: 4, rel_throughput: 2.0}\n"
      "nodes:\n  - {count: 1, devices: {Tiny: 1}}\n  - {count: 1, devices: {V100: 1}}\n");
  Workload w = workload_from_csv(
      c, "id,submit_s,workers,duration_s,model\nbig,0,1,1000,resnet50\nsmall,0,1,1000,resnet18\n");
  RunOutput out = run_policy("fifo", c, w);
  CHECK(end_s(out, w, "big") == Approx(1000).epsilon(1e-9));
  CHECK(end_s(out, w, "small") == Approx(500).epsilon(1e-9));
}

TEST_CASE("a job whose model fits no device of the cluster is an error naming the row",
          "[runtime][memory][errors]") {
  Cluster c =
      cluster_from_yaml("device_types:\n  Tiny: {kind: gpu, memory_gb: 4, rel_throughput: 2.0}\n"
                        "nodes:\n  - {count: 2, devices: {Tiny: 2}}\n");
  CHECK_THROWS_WITH(
      workload_from_csv(c, "id,submit_s,workers,duration_s,model\nbig,0,1,1000,resnet50\n"),
      Catch::Contains(
          ":2: model: job 'big': model 'resnet50' needs 5 GB per device; the largest usable "
          "device here has 4 GB"));
}

TEST_CASE("starting a job alone on a device too small for its model is refused",
          "[runtime][memory][errors]") {
  Cluster c = cluster_from_yaml(
      "device_types:\n  Tiny: {kind: gpu, memory_gb: 4, rel_throughput: 2.0}\n"
      "nodes:\n  - {count: 1, devices: {Tiny: 1}}\n  - {count: 1, devices: {V100: 1}}\n");
  Workload w =
      workload_from_csv(c, "id,submit_s,workers,duration_s,model\nbig,0,1,1000,resnet50\n");
  // Device 0 is the Tiny.
  ScriptPolicy p({{0, [](Control& ctl) { ctl.start(0, std::vector<DeviceId>{0}); }}});
  Simulation sim(c, w, RuntimeConfig{}, p, PolicyInfo{"script", false});
  CHECK_THROWS_WITH(
      sim.run(), Catch::Contains("device 0 (Tiny) has 4 GB of memory, the job's model needs 5 GB"));
}

TEST_CASE("a policy that is not an oracle cannot read the raw state, observers can",
          "[runtime][oracle]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\na,0,1,100\n");
  // raw() holds every job's true length (workload jobs[j].iterations).
  ScriptPolicy peek({{0, [](Control& ctl) { (void)ctl.raw(); }}});
  Simulation plain(c, w, RuntimeConfig{}, peek, PolicyInfo{"peek", false});
  CHECK_THROWS_WITH(plain.run(), Catch::Contains("non-oracle policy asked for the raw state"));
  // Registered as an oracle, the same policy may; then it starts the job, which runs 100 s.
  ScriptPolicy oracle({{0, [](Control& ctl) {
                          CHECK(ctl.raw().workload->jobs[0].iterations > 0);
                          ctl.start(0, std::vector<DeviceId>{0});
                        }}});
  Simulation sim(c, w, RuntimeConfig{}, oracle, PolicyInfo{"oracle", true});
  sim.run();
  CHECK(sim.state().jobs[0].end == 100'000'000);
}
