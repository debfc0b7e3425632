// Interference from data (docs/runtime.md#co-location-and-interference): a curve
// per device type, and measured pair slowdowns (Gavel's) that replace the curve for the pairs
// they list, each job of a pair with its own factor.
#include "sim/engine/error.h"
#include "sim/runtime/rate_model.h"
#include "tests/support/harness.h"
#include "workloads/build_workload.h"
#include "workloads/interference_pairs.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace {

const ModelZoo& gavel_zoo() {
  static const ModelZoo z =
      load_model_zoo(std::string(DLSIM_SOURCE_DIR_FOR_TESTS) + "/configs/models/gavel.yaml");
  return z;
}

std::vector<DeviceId> devs(std::initializer_list<DeviceId> d) {
  return d;
}

// Two 100 s jobs (on a V100, alone) packed onto one V100 at t = 0; returns their end times.
std::pair<double, double> packed_ends(const Workload& w, const Cluster& c,
                                      const RuntimeConfig& config) {
  ScriptPolicy both({{0, [](Control& ctl) {
                        ctl.pack(0, devs({0}));
                        ctl.pack(1, devs({0}));
                      }}});
  Simulation sim(c, w, config, both, PolicyInfo{"script", false});
  sim.run();
  return {to_seconds(sim.state().jobs[0].end), to_seconds(sim.state().jobs[1].end)};
}

} // namespace

TEST_CASE("a measured pair replaces the curve, each job with its own factor", "[interference]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  Workload w = build_workload(trace_from_csv("id,submit_s,workers,duration_s,model\n"
                                             "lm,0,1,100,gavel_lm_bs20\n"
                                             "rn,0,1,100,gavel_resnet50_bs64\n"),
                              gavel_zoo(), c, WorkloadOptions{});
  RuntimeConfig config;
  SECTION("without the table: the curve, both at gpu_util 0.8") {
    // U = 0.8 + 0.8 = 1.6: slowdown 1 + 2.5 x (1.6 - 0.8) = 3 for both; both end at 300 s.
    auto [lm, rn] = packed_ends(w, c, config);
    CHECK(lm == Approx(300.0));
    CHECK(rn == Approx(300.0));
  }
  SECTION("with Gavel's V100 pair (configs/interference/gavel-pairs.csv)") {
    config.interference_pairs = load_interference_pairs(std::string(DLSIM_SOURCE_DIR_FOR_TESTS) +
                                                            "/configs/interference/gavel-pairs.csv",
                                                        c.types, gavel_zoo(), w.models);
    // Gavel, simulation_throughputs.json (c4fa400), v100, LM (batch size 20) with ResNet-50
    // (batch size 64): LM at 1/2.611 of its solo throughput, ResNet-50 at 1/1.455 of its own.
    // ResNet-50 ends at 100 x 1.455 = 145.5 s. By then LM has done 145.5 / 2.611 = 55.7258 s of
    // its 100 s; the remaining 44.2742 s it runs alone: it ends at 189.7742 s.
    auto [lm, rn] = packed_ends(w, c, config);
    CHECK(rn == Approx(145.5));
    CHECK(lm == Approx(145.5 + (100 - 145.5 / 2.611)));
  }
}

TEST_CASE("a device type's own curve applies to its devices only", "[interference]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1, K80: 1}}\n");
  RuntimeConfig config;
  auto k80 = find_device_type(c.types, "K80");
  REQUIRE(k80);
  config.interference_by_type.assign(c.types.size(), config.interference);
  config.interference_by_type[*k80] = Interference{1.0, 0.5};
  DeviceSlot slot;
  slot.count = slot.running = 2;
  slot.running_util = 1.2;
  // K80: 1 + 1.0 x (1.2 - 0.5) = 1.7; V100 keeps the default 1 + 2.5 x (1.2 - 0.8) = 2.0.
  CHECK(device_slowdown(slot, config, *k80) == Approx(1.7));
  auto v100 = find_device_type(c.types, "V100");
  CHECK(device_slowdown(slot, config, *v100) == Approx(2.0));
  // Effective utilization uses the same curve: min(1, 1.2 / 1.7) = 0.70588.
  CHECK(device_effective(slot, config, *k80) == Approx(1.2 / 1.7));
}

TEST_CASE("a bad pairs file names its line", "[interference][errors]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  std::vector<std::string> models{"", "gavel_lm_bs20"};
  ScratchDir dir;
  auto load = [&](const std::string& csv) {
    return load_interference_pairs(dir.write("pairs.csv", csv), c.types, gavel_zoo(), models);
  };
  const std::string header = "device_type,model,with,slowdown\n";
  CHECK_THROWS_WITH(load(header + "V100,gavel_lm_bs20,gavel_lm_bs20,1.5\nH200,gavel_lm_bs20,"
                                  "gavel_lm_bs20,1.5\n"),
                    Catch::Contains("pairs.csv:3: device_type: 'H200' is not a device type"));
  CHECK_THROWS_WITH(load(header + "V100,gpt9,gavel_lm_bs20,1.5\n"),
                    Catch::Contains("pairs.csv:2: model: 'gpt9' is not a model of"));
  CHECK_THROWS_WITH(load(header + "V100,gavel_lm_bs20,gavel_lm_bs20,0\n"),
                    Catch::Contains("pairs.csv:2: slowdown: expected a slowdown > 0"));
  CHECK_THROWS_WITH(load(header + "V100,gavel_lm_bs20,gavel_lm_bs20,1.5\n"
                                  "V100,gavel_lm_bs20,gavel_lm_bs20,1.6\n"),
                    Catch::Contains("pairs.csv:3: model: the pair (gavel_lm_bs20, gavel_lm_bs20) "
                                    "on V100 is already given at line 2"));
  CHECK_THROWS_WITH(load("device_type,model,slowdown\n"),
                    Catch::Contains("pairs.csv:1: the header has no column 'with'"));
  // A good file: the pair is kept for the run's model ids (0 is "no model").
  InterferencePairs p = load(header + "V100,gavel_lm_bs20,gavel_lm_bs20,1.5\n");
  CHECK(p.at(*find_device_type(c.types, "V100"), 1, 1) == 1.5);
  CHECK(p.at(*find_device_type(c.types, "V100"), 0, 1) == 0.0);
}

TEST_CASE("dlsim run reads the interference keys and names a bad one", "[interference][cli]") {
  ScratchDir dir;
  Outcome bad = run_dlsim(
      "run --out " + dir.file("a") + " --set runtime.interference.by_type.H200.slope=1 -q", dir);
  CHECK(bad.code == 1);
  CHECK_THAT(bad.err, Catch::Contains("runtime.interference.by_type.H200: 'H200' is not a device "
                                      "type of the cluster's catalog"));
  Outcome negative = run_dlsim(
      "run --out " + dir.file("b") + " --set runtime.interference.by_type.V100.onset=-1 -q", dir);
  CHECK(negative.code == 1);
  CHECK_THAT(negative.err,
             Catch::Contains("runtime.interference.by_type.V100.onset: must be a number >= 0"));
  Outcome missing = run_dlsim(
      "run --out " + dir.file("c") + " --set runtime.interference.pairs=no-such.csv -q", dir);
  CHECK(missing.code == 1);
  CHECK_THAT(missing.err, Catch::Contains("no-such.csv"));
  // A good curve is written back to run.yaml, so that run.yaml repeats the run.
  Outcome good = run_dlsim(
      "run --out " + dir.file("d") + " --set runtime.interference.by_type.V100.slope=1.5 -q", dir);
  REQUIRE(good.code == 0);
  CHECK_THAT(read_file(dir.file("d/run.yaml")), Catch::Contains("V100:\n        slope: 1.5"));
}
