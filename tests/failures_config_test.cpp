// Failure and checkpoint settings beyond the experiment's `failures` section: a job's own
// checkpoint interval from its trace.
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("a job's own checkpoint interval replaces the experiment's; 0 means none",
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
