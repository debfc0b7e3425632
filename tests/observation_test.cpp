// What a policy may observe (docs/policies.md#what-a-policy-sees): nothing of a
// job before its submission.
#include "support/harness.h"

#include "sim/engine/error.h"

#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <optional>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("a policy cannot read a job before its submission, observers can", "[runtime][view]") {
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

TEST_CASE("a job's utilization is measured after it has run alone for runtime.profile_s",
          "[runtime][view]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  // resnet50's solo utilization in the zoo is 0.90; vgg16's 0.95.
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,model\n"
                                    "a,0,1,200,resnet50\n"
                                    "b,0,1,200,vgg16\n"
                                    "c,0,1,200,resnet50\n");
  std::vector<std::optional<double>> seen_a, seen_b;
  auto look = [&](Control& ctl) {
    seen_a.push_back(ctl.measured_gpu_util(0));
    seen_b.push_back(ctl.measured_gpu_util(1));
  };
  // a alone on device 0 from 0; b and c packed on device 1 from 0 until c is suspended at 40 s,
  // then b runs alone. With profile_s = 60: a is known from 60 s; b from 40 + 60 = 100 s.
  ScriptPolicy script({{0,
                        [&](Control& ctl) {
                          ctl.start(0, std::vector<DeviceId>{0});
                          ctl.pack(1, std::vector<DeviceId>{1});
                          ctl.pack(2, std::vector<DeviceId>{1});
                          look(ctl);
                        }},
                       {40'000'000,
                        [&](Control& ctl) {
                          ctl.suspend(2);
                          look(ctl);
                        }},
                       {59'000'000, look},
                       {60'000'000, look},
                       {99'000'000, look},
                       {100'000'000, look}});
  Simulation sim(c, w, RuntimeConfig{}, script, PolicyInfo{"script", false});
  sim.run();
  REQUIRE(seen_a.size() == 6);
  CHECK_FALSE(seen_a[2].has_value()); // 59 s alone
  REQUIRE(seen_a[3].has_value());     // 60 s alone
  CHECK(*seen_a[3] == Approx(0.90));
  CHECK_FALSE(seen_b[3].has_value()); // 20 s alone (since 40 s)
  CHECK_FALSE(seen_b[4].has_value()); // 59 s alone
  REQUIRE(seen_b[5].has_value());     // 60 s alone
  CHECK(*seen_b[5] == Approx(0.95));
}

TEST_CASE("a policy reads a model's static features and draws from its own random stream",
          "[runtime][view]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,model\na,0,1,100,resnet50\n");
  ScriptPolicy look({{0, [&](Control& ctl) {
                        // configs/models/zoo.yaml: resnet50 is a cnn of 25.6 M parameters.
                        const ModelFeatures& f = ctl.model_features(ctl.request(0).model);
                        CHECK(f.family == "cnn");
                        CHECK(f.params_m == Approx(25.6));
                        CHECK(ctl.model_features(0).family.empty());
                      }}});
  Simulation sim(c, w, RuntimeConfig{}, look, PolicyInfo{"look", false});
  sim.run();

  PolicySetup one{Placement::kConsolidate, PolicyParams(YAML::Node(), "x")};
  one.seed = 7;
  PolicySetup other = one;
  Rng a = policy_rng(one, "gandiva"), b = policy_rng(other, "gandiva");
  Rng named = policy_rng(one, "tiresias");
  other.seed = 8;
  Rng reseeded = policy_rng(other, "gandiva");
  std::uint64_t first = a.next_u64();
  CHECK(first == b.next_u64());        // same seed and name: the same stream
  CHECK(first != named.next_u64());    // another policy: another stream
  CHECK(first != reseeded.next_u64()); // another seed: another stream
}
