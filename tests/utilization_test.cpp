// Utilization per device kind and type (summary.json util_by_kind / util_by_type, timeseries.csv)
// and effective utilization as useful work (docs/outputs.md#utilization). Every expected number
// is worked out in the comment above it.
#include "sim/report/metrics.h"
#include "sim/report/summary.h"
#include "sim/report/summary_metric.h"
#include "tests/support/harness.h"
#include "tests/support/invariants.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// One V100 under a scripted policy that packs the two jobs of `csv` onto it at t = 0.
Summary packed_pair(const std::string& csv, const RuntimeConfig& config) {
  Cluster cluster = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  Workload workload = workload_from_csv(cluster, csv);
  ScriptPolicy policy({{0, [](Control& c) {
                          c.pack(0, std::vector<DeviceId>{0});
                          c.pack(1, std::vector<DeviceId>{0});
                        }}});
  Simulation sim(cluster, workload, config, policy, PolicyInfo{"script", false});
  InvariantChecker checker;
  UtilizationMeter meter;
  MetricSet metrics(summary_metrics(), MetricSetup{});
  sim.add_observer(&checker);
  sim.add_observer(&meter);
  metrics.observe(sim);
  RunResult r = sim.run();
  checker.check_final(sim.state());
  Summary s = summarize(sim.state(), r, meter, "script", 0, metrics.job_metrics());
  s.metric_keys = metrics.keys(RunEnd{sim.state(), r, s, meter});
  return s;
}

} // namespace

TEST_CASE("effective utilization counts useful work: interference lowers it", "[outputs][util]") {
  // x and y, 100 s each, gpu_util 0.6, packed on one V100 at 0. U = 1.2, slowdown =
  // 1 + 2.5 x (1.2 - 0.8) = 2.0 (docs/runtime.md): both run at half speed and end at 200 s.
  // Useful work on the GPU: 0.6/2 + 0.6/2 = 0.6 for 200 s = 120 GPU-s of 1 x 200:
  // gpu_util_effective = 0.6. (Counting min(1, 1.2) = 1 would say the GPU did 200 s of useful
  // work, while the two jobs' 2 x 100 s of solo work at 0.6 utilization is 120 GPU-s.)
  Summary s = packed_pair("id,submit_s,workers,duration_s,gpu_util\nx,0,1,100,0.6\ny,0,1,100,0.6\n",
                          RuntimeConfig{});
  CHECK(s.makespan_s == 200);
  CHECK(s.gpu_util_alloc == 1);
  CHECK(s.gpu_util_effective == Approx(0.6).margin(1e-12));
  const nlohmann::ordered_json& kinds = s.metric_keys["util_by_kind"];
  REQUIRE(kinds.size() == 1);
  CHECK(kinds["gpu"]["effective"].get<double>() == s.gpu_util_effective);
  const nlohmann::ordered_json& types = s.metric_keys["util_by_type"];
  REQUIRE(types.size() == 1);
  CHECK(types["V100"]["effective"].get<double>() == Approx(0.6).margin(1e-12));

  // Two jobs that each keep the GPU fully busy alone (gpu_util 1), slowed 2x each: interference
  // onset 1, slope 1: 1 + 1 x (2 - 1) = 2. Each does half a GPU's work: 1/2 + 1/2 = 1.0 effective
  // GPU, not 2. Both end at 2 x 100 = 200 s: gpu_util_effective = 1 x 200 / 200 = 1.
  RuntimeConfig twice;
  twice.interference.onset = 1.0;
  twice.interference.slope = 1.0;
  s = packed_pair("id,submit_s,workers,duration_s,gpu_util\nx,0,1,100,1\ny,0,1,100,1\n", twice);
  CHECK(s.makespan_s == 200);
  CHECK(s.gpu_util_effective == Approx(1.0).margin(1e-12));

  // Below the onset nothing changes: 0.3 + 0.4 = 0.7 < 0.8, slowdown 1. x (100 s) and y (60 s)
  // end at 100 and 60: 0.7 x 60 + 0.3 x 40 = 54 GPU-s over 100 s = 0.54.
  s = packed_pair("id,submit_s,workers,duration_s,gpu_util\nx,0,1,100,0.3\ny,0,1,60,0.4\n",
                  RuntimeConfig{});
  CHECK(s.gpu_util_effective == Approx(0.54).margin(1e-12));
}

TEST_CASE("utilization per device kind and type on a mixed cluster", "[outputs][util][hetero]") {
  ScratchDir dir;
  // One node: 2 V100 (gpu), 2 of a CPU type, 1 of an FPGA type, both as fast as the V100 so a
  // job's duration is its run time on them; no Xeon Phi.
  dir.write("c.yaml", "device_types:\n"
                      "  cpu1: {kind: cpu, rel_throughput: 1}\n"
                      "  fpga1: {kind: fpga, rel_throughput: 1}\n"
                      "nodes:\n  - {count: 1, devices: {V100: 2, cpu1: 2, fpga1: 1}}\n");
  // g: 1 V100 for 100 s at util 0.5; c: 2 workers on cpu1 for 50 s at util 1; f: the FPGA for
  // 200 s at util 0.75. All start at 0 (start_s 0), nothing waits. Makespan 200 s.
  dir.write("t.csv", "id,submit_s,workers,duration_s,device_type,gpu_util\n"
                     "g,0,1,100,V100,0.5\nc,0,2,50,cpu1,1\nf,0,1,200,fpga1,0.75\n");
  Outcome r = run_dlsim("run -q --policy fifo --cluster " + dir.file("c.yaml") + " --trace " +
                            dir.file("t.csv") + " --out " + dir.file("res"),
                        dir);
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(read_file(dir.file("res/summary.json")));
  CHECK(j["makespan_s"] == 200);
  // gpu:  allocated 1 x 100 = 100 GPU-s of 2 x 200 = 400: 0.25; effective 0.5 x 100 = 50: 0.125.
  // cpu:  allocated 2 x 50 = 100 of 2 x 200 = 400: 0.25; effective 1 x 100 = 100: 0.25.
  // fpga: allocated 200 of 1 x 200: 1; effective 0.75 x 200 = 150: 0.75.
  // The GPU kind repeats gpu_util_alloc and gpu_util_effective; xeon_phi is absent (no devices).
  CHECK(j["gpu_util_alloc"] == 0.25);
  CHECK(j["gpu_util_effective"] == 0.125);
  nlohmann::json kinds = j["util_by_kind"];
  CHECK(kinds.size() == 3);
  CHECK(kinds["gpu"] == nlohmann::json{{"devices", 2}, {"alloc", 0.25}, {"effective", 0.125}});
  CHECK(kinds["cpu"] == nlohmann::json{{"devices", 2}, {"alloc", 0.25}, {"effective", 0.25}});
  CHECK(kinds["fpga"] == nlohmann::json{{"devices", 1}, {"alloc", 1.0}, {"effective", 0.75}});
  CHECK_FALSE(kinds.contains("xeon_phi"));
  nlohmann::json types = j["util_by_type"];
  CHECK(types.size() == 3);
  CHECK(types["V100"] ==
        nlohmann::json{{"kind", "gpu"}, {"devices", 2}, {"alloc", 0.25}, {"effective", 0.125}});
  CHECK(types["cpu1"] ==
        nlohmann::json{{"kind", "cpu"}, {"devices", 2}, {"alloc", 0.25}, {"effective", 0.25}});
  CHECK(types["fpga1"] ==
        nlohmann::json{{"kind", "fpga"}, {"devices", 1}, {"alloc", 1.0}, {"effective", 0.75}});

  // timeseries.csv, every 60 s: at 0 all three run (1 GPU at 0.5 of 2: 0.25; 2 CPUs at 1: 1;
  // the FPGA at 0.75); c ends at 50, g at 100, f at 200. The GPU job runs alone, so the
  // kernel-busy GPU figure (last column) is its utilization too: 0.25.
  CHECK(read_file(dir.file("res/timeseries.csv")) ==
        "time_s,running_jobs,pending_jobs,allocated_gpus,effective_gpu_util,allocated_cpus,"
        "effective_cpu_util,allocated_xeon_phis,effective_xeon_phi_util,allocated_fpgas,"
        "effective_fpga_util,held_core_util,busy_gpu_util\n"
        "0,3,0,1,0.25,2,1,0,0,1,0.75,0,0.25\n"
        "60,2,0,1,0.25,0,0,0,0,1,0.75,0,0.25\n"
        "120,1,0,0,0,0,0,0,0,1,0.75,0,0\n"
        "180,1,0,0,0,0,0,0,0,1,0.75,0,0\n");
}

TEST_CASE("fairness: Jain's index over users' mean slowdowns, max slowdown, rho",
          "[outputs][fairness]") {
  ScratchDir dir;
  dir.write("c.yaml", "nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  // FIFO on one V100, all submitted at 0, in trace order: a (u1, 100 s) runs 0-100, b (u2, 50 s)
  // 100-150, c (u1, 50 s) 150-200. Solo times are the durations (V100 is the reference), so the
  // slowdowns are a 100/100 = 1, b 150/50 = 3, c 200/50 = 4.
  // Users' means: u1 (1 + 4)/2 = 2.5, u2 3. Jain = (2.5 + 3)^2 / (2 x (2.5^2 + 3^2))
  //   = 30.25 / 30.5 = 0.99180327868852...; slowdown mean (1 + 3 + 4)/3 = 8/3, max 4.
  // rho = JCT / isolated JCT with isolated = solo_s: the slowdowns again.
  dir.write("t.csv", "id,submit_s,workers,duration_s,user\n"
                     "a,0,1,100,u1\nb,0,1,50,u2\nc,0,1,50,u1\n");
  Outcome r = run_dlsim("run -q --policy fifo --cluster " + dir.file("c.yaml") + " --trace " +
                            dir.file("t.csv") + " --out " + dir.file("res"),
                        dir);
  REQUIRE(r.code == 0);
  auto f = nlohmann::json::parse(read_file(dir.file("res/summary.json")))["fairness"];
  CHECK(f["jobs"] == 3);
  CHECK(f["users"] == 2);
  CHECK(f["jain_user_slowdown"].get<double>() == Approx(30.25 / 30.5).epsilon(1e-12));
  CHECK(f["slowdown_mean"].get<double>() == Approx(8.0 / 3.0).epsilon(1e-12));
  CHECK(f["slowdown_max"] == 4.0);
  CHECK(f["ftf_rho_mean"].get<double>() == Approx(8.0 / 3.0).epsilon(1e-12));
  CHECK(f["ftf_rho_max"] == 4.0);
}

TEST_CASE("two packed jobs: useful work and what nvidia-smi would show", "[outputs][util]") {
  // x (100 s, gpu_util 0.6) and y (50 s, gpu_util 0.8) packed on one V100 at 0, with a complete
  // pair table (the fitted model's form) whose every factor is 2: both run at half speed. y ends
  // at 2 x 50 = 100 s; x has done 50 s of work by then and ends alone at 100 + 50 = 150 s.
  //   useful work (gpu_util_effective): [0, 100] 0.6/2 + 0.8/2 = 0.7; [100, 150] 0.6 alone:
  //     (0.7 x 100 + 0.6 x 50) / 150 = 100 / 150 = 0.666667
  //   kernel-busy (gpu_util_busy): [0, 100] 1 - (1 - 0.6)/2 x (1 - 0.8)/2 = 1 - 0.2 x 0.1 = 0.98;
  //     [100, 150] 0.6: (0.98 x 100 + 0.6 x 50) / 150 = 128 / 150 = 0.853333
  RuntimeConfig table;
  table.interference_pairs.models = 1; // model 0 only: jobs without a model
  table.interference_pairs.complete = true;
  // One factor per device type (model 0 with model 0); more entries than the catalog has types.
  table.interference_pairs.slowdown.assign(64, 2.0);
  Summary s =
      packed_pair("id,submit_s,workers,duration_s,gpu_util\nx,0,1,100,0.6\ny,0,1,50,0.8\n", table);
  CHECK(s.makespan_s == 150);
  CHECK(s.gpu_util_alloc == 1);
  CHECK(s.gpu_util_effective == Approx(100.0 / 150).margin(1e-12));
  CHECK(s.gpu_util_busy == Approx(128.0 / 150).margin(1e-12));
}
