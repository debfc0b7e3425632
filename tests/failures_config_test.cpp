// Failure and checkpoint settings beyond the experiment's `failures` section: a job's own
// checkpoint interval from its trace.
#include "sim/runtime/failure_model.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("a job's own checkpoint interval replaces the experiment's, 0 means none",
          "[failures][checkpoints]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 3, devices: {V100: 8}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s,"
                                    "checkpoint_interval_s\n"
                                    "J,0,1,8,3600,1000\nK,0,1,8,1000,\nZ,0,1,8,3600,0\n");
  RuntimeConfig cfg;
  cfg.failures.checkpoint_interval_s = 600;
  cfg.failures.checkpoint_s = 30;
  RunOutput out = run_policy("fifo", c, w, cfg);
  auto end_s = [&](const char* name) { return to_seconds(out.state.jobs[job_named(w, name)].end); };
  auto ckpts = [&](const char* name) {
    return out.state.failures.jobs[job_named(w, name)].checkpoints;
  };
  // J, every 1,000 s: runs 0-1,000, writes 1,000-1,030, runs to 2,030, writes to 2,060, runs to
  // 3,060 (3,000 done), writes to 3,090, and its last 600 s end at 3,690: 3 checkpoints.
  CHECK(end_s("J") == 3690);
  CHECK(ckpts("J") == 3);
  // K, empty: the experiment's 600 s: 0-600, writes 600-630, its last 400 s end at 1,030.
  CHECK(end_s("K") == 1030);
  CHECK(ckpts("K") == 1);
  // Z, 0: no checkpoint, 3,600 s.
  CHECK(end_s("Z") == 3600);
  CHECK(ckpts("Z") == 0);

  // Without an experiment interval, J's own still checkpoints (and turns the measures on).
  RuntimeConfig none;
  none.failures.checkpoint_s = 30;
  RunOutput own = run_policy("fifo", c, w, none);
  CHECK(to_seconds(own.state.jobs[job_named(w, "J")].end) == 3690);
  CHECK(to_seconds(own.state.jobs[job_named(w, "K")].end) == 1000);

  CHECK_THROWS_WITH(
      workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s,checkpoint_interval_s\n"
                           "J,0,1,8,3600,-5\n"),
      Catch::Contains("checkpoint_interval_s: must be a time >= 0 s, got -5"));
}

TEST_CASE("a GPU type's own failure process: its rate, its repairs", "[failures]") {
  Cluster c =
      cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 4}}\n  - {count: 1, devices: "
                        "{K80: 4}}\n");
  FailureConfig f;
  f.device.mtbf_h = 50;
  const DeviceTypeId k80 = c.devices[4].type;
  f.device_by_type.assign(c.types.size(), f.device);
  f.device_by_type[k80].mtbf_h = 5;
  f.device_by_type[k80].repair = "fixed";
  f.device_by_type[k80].repair_h = 1;
  // Devices 0-3 are V100s (the default process), 4-7 K80s (their own).
  CHECK(process_of(c, f, 0)->mtbf_h == 50);
  CHECK(process_of(c, f, 4)->mtbf_h == 5);
  CHECK(process_of(c, f, 4)->repair == "fixed");
  // A fixed repair of 1 h is 3,600 s.
  Rng rng = Rng::stream(1, "test.k80");
  CHECK(draw_repair_s(*process_of(c, f, 5), rng) == 3600);
}

TEST_CASE("a cluster file's failures section turns failures on, the experiment's keys win",
          "[failures][cli]") {
  ScratchDir dir;
  const std::string cluster = dir.write("c.yaml", "nodes:\n"
                                                  "  - {count: 2, devices: {V100: 8}}\n"
                                                  "  - {count: 1, devices: {K80: 8}}\n"
                                                  "failures:\n"
                                                  "  enabled: true\n"
                                                  "  node: {mtbf_h: 100}\n"
                                                  "  device:\n"
                                                  "    mtbf_h: 200\n"
                                                  "    by_type: {K80: {mtbf_h: 20, repair: fixed, "
                                                  "repair_h: 1}}\n");
  const std::string out = dir.file("r");
  Outcome run = run_dlsim("run -q --cluster " + cluster + " -o " + out, dir);
  REQUIRE(run.code == 0);
  const std::string log = read_file(out + "/failures.csv");
  // Every K80 (devices 16-23) repair takes exactly 3,600 s; the V100s' are exponential.
  std::istringstream rows(read_file(out + "/failures.csv"));
  std::string row;
  int k80_rows = 0;
  int other_rows = 0;
  std::getline(rows, row); // the header
  while (std::getline(rows, row)) {
    const auto at = row.find(",device:");
    if (at == std::string::npos) continue;
    const int d = std::stoi(row.substr(at + 8));
    const std::string duration = row.substr(row.rfind(',') + 1);
    if (d >= 16) {
      ++k80_rows;
      CHECK(duration == "3600.000000");
    } else if (duration != "3600.000000") {
      ++other_rows;
    }
  }
  // 8 K80s at 20 h against 16 V100s at 200 h: about 5 times as many K80 failures.
  CHECK(k80_rows > other_rows);
  CHECK(other_rows > 0);
  CHECK(read_file(out + "/run.yaml").find("by_type: {K80: {mtbf_h: 20") != std::string::npos);
  // The experiment's (here --set's) key wins: no failures, no failures.csv.
  const std::string off = dir.file("off");
  REQUIRE(run_dlsim("run -q --cluster " + cluster + " --set failures.enabled=false -o " + off, dir)
              .code == 0);
  CHECK_FALSE(std::filesystem::exists(off + "/failures.csv"));

  // Bad input names the cluster file and the key.
  const std::string bad = dir.write("bad.yaml", "nodes:\n  - {count: 2, devices: {V100: 8}}\n"
                                                "failures:\n  node: {mtbf_h: 0}\n");
  Outcome e = run_dlsim("run -q --cluster " + bad + " -o " + dir.file("x"), dir);
  CHECK(e.code == 1);
  CHECK_THAT(e.err, Catch::Contains("bad.yaml:4: failures.node.mtbf_h: must be positive, got 0"));
  const std::string cpu = dir.write("cpu.yaml", "nodes:\n  - {count: 2, devices: {V100: 8}}\n"
                                                "failures:\n  device: {by_type: {XeonPhi: "
                                                "{mtbf_h: 5}}}\n");
  e = run_dlsim("run -q --cluster " + cpu + " -o " + dir.file("x"), dir);
  CHECK(e.code == 1);
  CHECK_THAT(e.err,
             Catch::Contains("failures.device.by_type.XeonPhi: 'XeonPhi' is not a GPU type"));
}
