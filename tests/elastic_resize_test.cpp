// Resize mechanisms and parameter-server changes (docs/scaling.md#resize-mechanisms), driven by
// a scripted policy. Every expected number is worked out in the comment above it.
#include "sim/engine/error.h"
#include "sim/runtime/resize_cost.h"
#include "tests/support/scripted_run.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace {

using Scripted = ScriptedRun;

constexpr const char* kEightGpus = "nodes:\n  - {count: 1, devices: {V100: 8}}\n";
constexpr const char* kTwoNodes4 = "nodes:\n  - {count: 2, devices: {V100: 4}}\n";

RuntimeConfig with_resize(const std::string& mechanism) {
  RuntimeConfig c;
  c.resize = mechanism;
  return c;
}

// A vgg16 job asking for 2 workers (elastic 1 to 4), 1000 iterations at 0.140 s, started on 2
// GPUs at 0 and grown to 4 at 10 s.
double grown_at_10(const std::string& mechanism, const std::string& model = "vgg16") {
  Scripted s(kEightGpus,
             "id,submit_s,workers,min_workers,max_workers,iterations,model\na,0,2,1,4,1000," +
                 model + "\n",
             {{0, [](Control& c) { c.start(0, device_range(0, 2)); }},
              {10'000'000, [](Control& c) { c.resize(0, device_range(0, 4)); }}},
             with_resize(mechanism));
  s.run();
  return s.end_s();
}

} // namespace

TEST_CASE("resize cost: checkpoint-restart grows with the model, live is a small pause",
          "[elastic][resize]") {
  RuntimeConfig c;
  // flat: costs.resize_s = 5 whatever the model.
  CHECK(resize_cost_s(c, 553.6e6) == 5);
  // checkpoint: restart_s 30 + write and read 2 x 553.6e6 bytes (weights + momentum) at 1 GB/s:
  // 30 + 2 x 2 x 553.6e6 / 1e9 = 32.2144 s for vgg16; 30 + 4 x 102.4e6 / 1e9 = 30.4096 s for
  // resnet50; 30 s for a job without a model.
  c.resize = "checkpoint";
  CHECK(resize_cost_s(c, 553.6e6) == Approx(32.2144).epsilon(1e-12));
  CHECK(resize_cost_s(c, 102.4e6) == Approx(30.4096).epsilon(1e-12));
  CHECK(resize_cost_s(c, 0) == 30);
  // live: costs.live_resize_s = 1 s (Elan), whatever the model.
  c.resize = "live";
  CHECK(resize_cost_s(c, 553.6e6) == 1);
}

TEST_CASE("resize: each mechanism's pause moves the job's end", "[elastic][resize]") {
  // Linear scaling: on 2 workers the rate is 2 / (2 x 0.14) = 7.142857 iterations/s, so at 10 s
  // 71.428571 are done and 928.571429 remain; on 4 workers 4 / (2 x 0.14) = 14.285714/s, 65 s.
  // flat:       10 + 5 + 65 = 80 s
  // checkpoint: 10 + 32.2144 + 65 = 107.2144 s
  // live:       10 + 1 + 65 = 76 s
  CHECK(grown_at_10("flat") == Approx(80).margin(2e-6));
  CHECK(grown_at_10("checkpoint") == Approx(107.2144).margin(2e-6));
  CHECK(grown_at_10("live") == Approx(76).margin(2e-6));
  // resnet50 (0.128 s): 10 s is 78.125 iterations on 2 workers, 921.875 remain at 4 / (2 x
  // 0.128) = 15.625/s = 59 s; checkpoint 30.4096 s: 10 + 30.4096 + 59 = 99.4096 s.
  CHECK(grown_at_10("checkpoint", "resnet50") == Approx(99.4096).margin(2e-6));
}

TEST_CASE("set_ps: more parameter servers relieve the NIC under analytic scaling",
          "[elastic][ps]") {
  // 2 workers of 4 GPUs, one per node of kTwoNodes4 (8 replicas), vgg16 (M = 553.6e6 bytes),
  // 1000 iterations, analytic scaling, live resizes (1 s).
  // ps = 1, shard on node 0: node 0's NIC takes the 4 remote replicas' M each, node 1's sends
  // 4 M: U = 4 units of M/1. comm = 2 x 4 x 553.6e6 / 12.5e9 = 0.354304 s; exposed 0.15 x that
  // + (0.85 x 0.354304 - 0.0933333) = 0.0531456 + 0.2078251 = 0.2609707; step 0.4009707 s.
  // ps = 2, one shard per node (workers 0 and 1): U = max(1 x 4, 4 x 1) = 4 units of M/2:
  // comm 0.177152, exposed 0.0265728 + 0.0572459 = 0.0838187, step 0.2238187 s.
  // set_ps(2) at 40 s: 40 / 0.4009707 = 99.757921 iterations done; 1 s pause; the remaining
  // 900.242079 x 0.2238187 = 201.4910 s: ends at 242.4910 s.
  RuntimeConfig cfg = with_resize("live");
  cfg.scaling = "analytic";
  const std::string csv = "id,submit_s,workers,gpus_per_worker,iterations,model,ps\n"
                          "a,0,2,4,1000,vgg16,1\n";
  std::vector<DeviceId> both = device_range(0, 8);
  Scripted s(kTwoNodes4, csv,
             {{0, [&](Control& c) { c.start(0, both); }},
              {40'000'000, [](Control& c) { c.set_ps(0, 2); }}},
             cfg);
  s.run();
  CHECK(s.end_s() == Approx(242.4910).margin(1e-3));
  CHECK(s.sim->state().ps(0) == 2);
  CHECK(s.sim->state().jobs[0].resizes == 1);
  // Left at 1 server it takes 1000 x 0.4009707 = 400.97 s.
  Scripted one(kTwoNodes4, csv, {{0, [&](Control& c) { c.start(0, both); }}}, cfg);
  one.run();
  CHECK(one.end_s() == Approx(400.9707).margin(1e-3));
}

TEST_CASE("set_ps refuses 0 servers and ring all-reduce jobs", "[elastic][ps][errors]") {
  auto refusal = [](const std::string& csv, std::uint32_t ps) {
    Scripted s(kEightGpus, csv,
               {{0, [](Control& c) { c.start(0, device_range(0, 2)); }},
                {10'000'000, [ps](Control& c) { c.set_ps(0, ps); }}},
               RuntimeConfig{});
    try {
      s.run();
    } catch (const ActionError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(refusal("id,submit_s,workers,iterations,model,ps\na,0,2,100,vgg16,1\n", 0),
             Catch::Contains("set_ps refused at t=10s: a parameter-server job needs at least 1 "
                             "server, got 0"));
  CHECK_THAT(refusal("id,submit_s,workers,iterations,model\na,0,2,100,vgg16\n", 2),
             Catch::Contains("ring all-reduce"));
}
