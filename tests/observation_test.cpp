// What a policy may observe (issue 11 item 4, docs/policies.md#what-a-policy-sees): nothing of a
// job before its submission.
#include "support/harness.h"

#include "sim/engine/error.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("a policy cannot read a job before its submission; observers can", "[runtime][view]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\n"
                                    "now,0,1,100\n"
                                    "later,50,2,100\n");
  JobId later = job_named(w, "later");
  SECTION("its request and its name are refused at t = 0, even to an oracle") {
    for (bool oracle : {false, true}) {
      ScriptPolicy peek({{0, [&](Control& ctl) { (void)ctl.request(later); }}});
      Simulation sim(c, w, RuntimeConfig{}, peek, PolicyInfo{"peek", oracle});
      CHECK_THROWS_WITH(sim.run(), Catch::Contains("read job 1 ('later') before its submission "
                                                   "at 50 s (now 0 s)"));
      ScriptPolicy by_name({{0, [&](Control& ctl) { (void)ctl.job_name(later); }}});
      Simulation sim2(c, w, RuntimeConfig{}, by_name, PolicyInfo{"peek", oracle});
      CHECK_THROWS_AS(sim2.run(), ActionError);
    }
  }
  SECTION("its state is visible as kFuture, and from its submission on its request is too") {
    std::uint32_t seen_workers = 0;
    ScriptPolicy wait(
        {{0,
          [&](Control& ctl) {
            CHECK(ctl.state(later).status == JobStatus::kFuture);
            ctl.start(0, std::vector<DeviceId>{0});
          }},
         {50'000'000, [&](Control& ctl) { seen_workers = ctl.request(later).workers; }}});
    Simulation sim(c, w, RuntimeConfig{}, wait, PolicyInfo{"wait", false});
    sim.run();
    CHECK(seen_workers == 2);
  }
}
