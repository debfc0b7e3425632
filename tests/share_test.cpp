// Fractional shares under the share controller (docs/runtime.md#fractional-shares): the
// water-filling grants, speed min(1, s / u), set_share and its cost, admission by guaranteed share
// and memory, the refusal of pack onto a device held exclusively, and the native trace's share
// columns. Every expected number is worked out in the comment above it. The scripted runs use the
// cost-free controller (runtime.share.model: ideal) so that the grants' arithmetic stays round;
// tests/share_cost_test.cpp adds the token controller's cost.
#include "sim/engine/error.h"
#include "sim/runtime/rate_model.h"
#include "tests/support/harness.h"
#include "tests/support/invariants.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>

using namespace dlsim;
using namespace dlsim::test;

namespace {

constexpr const char* kOneGpu = "nodes:\n  - {count: 1, devices: {V100: 1}}\n";

// The controller at no cost: speed min(1, grant / u).
RuntimeConfig ideal_shares() {
  RuntimeConfig c;
  c.share.model = "ideal";
  return c;
}

// One V100 (16 GB), a scripted policy and the invariant checker (share sums, memory, grants).
struct Scripted {
  Cluster cluster;
  Workload workload;
  std::unique_ptr<ScriptPolicy> policy;
  std::unique_ptr<Simulation> sim;
  InvariantChecker checker;

  Scripted(const std::string& csv, std::vector<ScriptPolicy::Step> steps,
           RuntimeConfig cfg = ideal_shares())
      : cluster(cluster_from_yaml(kOneGpu)), workload(workload_from_csv(cluster, csv)) {
    policy = std::make_unique<ScriptPolicy>(std::move(steps));
    sim =
        std::make_unique<Simulation>(cluster, workload, cfg, *policy, PolicyInfo{"script", false});
    sim->add_observer(&checker);
  }
  void run() {
    sim->run();
    checker.check_final(sim->state());
  }
  [[nodiscard]] double end(const std::string& name) const {
    return to_seconds(sim->state().jobs[job_named(workload, name)].end);
  }
};

const std::vector<DeviceId> kGpu0{0};

} // namespace

TEST_CASE("water-filling grants: floors, caps, the spare split evenly", "[share][rate]") {
  // Floors 0.2/0.3/0.1, caps 1/1/0.2. f(L) = sum clamp(L, lo, hi): f(0.3) = 0.3 + 0.3 + 0.2 =
  // 0.8, f(1) = 1 + 1 + 0.2 = 2.2, so f reaches 1 in [0.3, 1] at L = 0.3 + 0.2 x 0.7 / 1.4 = 0.4:
  // grants 0.4 + 0.4 + 0.2 = 1.
  std::array<double, 3> lo{0.2, 0.3, 0.1};
  std::array<double, 3> hi{1, 1, 0.2};
  std::array<double, 3> g{};
  water_fill(lo, hi, g);
  CHECK(g[0] == Approx(0.4));
  CHECK(g[1] == Approx(0.4));
  CHECK(g[2] == Approx(0.2));
  // Caps summing to at most 1: everyone gets its cap (0.3 + 0.5 = 0.8; 0.2 stays idle).
  std::array<double, 2> lo2{0.1, 0.2};
  std::array<double, 2> hi2{0.3, 0.5};
  std::array<double, 2> g2{};
  water_fill(lo2, hi2, g2);
  CHECK(g2[0] == Approx(0.3));
  CHECK(g2[1] == Approx(0.5));
  // A floor above the level: floors 0.6 and 0.1, caps 1 and 1: L = 0.4 gives 0.6 + 0.4 = 1.
  std::array<double, 2> lo3{0.6, 0.1};
  std::array<double, 2> hi3{1, 1};
  water_fill(lo3, hi3, g2);
  CHECK(g2[0] == Approx(0.6));
  CHECK(g2[1] == Approx(0.4));
}

TEST_CASE("a 0.25-share job alone runs at min(1, 0.25 / u) of its solo speed", "[share]") {
  // u = 0.5, share fixed at 0.25 (min = max): its cap is max(0.25, min(0.25, 0.5)) = 0.25, the
  // grant 0.25, speed 0.25 / 0.5 = 0.5: 100 s of work take 200 s.
  // Its useful work on the GPU: min(u, grant) = min(0.5, 0.25) = 0.25 effective GPUs.
  const Simulation* sim = nullptr;
  Scripted half("id,submit_s,workers,duration_s,gpu_util,gpu_share_min,gpu_share_max\n"
                "a,0,1,100,0.5,0.25,0.25\n",
                {{0, [&](Control& c) {
                    c.pack(0, kGpu0);
                    CHECK(sim->state().effective_gpus == Approx(0.25));
                  }}});
  sim = half.sim.get();
  half.run();
  CHECK(half.end("a") == Approx(200));
  // u = 0.2: the grant 0.25 covers it, speed min(1, 0.25 / 0.2) = 1: 100 s.
  Scripted low("id,submit_s,workers,duration_s,gpu_util,gpu_share_min,gpu_share_max\n"
               "a,0,1,100,0.2,0.25,0.25\n",
               {{0, [](Control& c) { c.pack(0, kGpu0); }}});
  low.run();
  CHECK(low.end("a") == Approx(100));
  // The same job placed with start holds the device whole: no controller, speed 1, 100 s.
  Scripted whole("id,submit_s,workers,duration_s,gpu_util,gpu_share_min,gpu_share_max\n"
                 "a,0,1,100,0.5,0.25,0.25\n",
                 {{0, [](Control& c) { c.start(0, kGpu0); }}});
  whole.run();
  CHECK(whole.end("a") == Approx(100));
}

TEST_CASE("three shared jobs: water-filling grants, regranted as jobs finish", "[share]") {
  // a (min 0.2, max 1, 100 s), b (min 0.3, max 1, 60 s), c (min 0.1, max 0.2, 10 s), all
  // u = 1, packed at 0 on one GPU. Grants at level 0.4: 0.4 / 0.4 / 0.2 (sum 1), speeds equal
  // to the grants (u = 1). c: 10 / 0.2 = 50 s. At 50 a and b have done 0.4 x 50 = 20 each; floors
  // 0.2 and 0.3, caps 1: level 0.5 gives 0.5 / 0.5. b: 40 left / 0.5 = 80 s, ends at 130; a has
  // 20 + 0.5 x 80 = 60 done, then alone is granted its cap 1: 40 s more, ends at 170.
  const Simulation* sim = nullptr;
  Scripted s("id,submit_s,workers,duration_s,gpu_util,gpu_share_min,gpu_share_max\n"
             "a,0,1,100,1,0.2,1\nb,0,1,60,1,0.3,1\nc,0,1,10,1,0.1,0.2\n",
             {{0, [&](Control& c) {
                 c.pack(0, kGpu0);
                 c.pack(1, kGpu0);
                 c.pack(2, kGpu0);
                 // The grants as the runtime sees them, and the useful work on the GPU:
                 // min(1, 0.4) + min(1, 0.4) + min(1, 0.2) = 1.
                 const SimState& st = sim->state();
                 CHECK(share_grant(st, st.slots[0], 0) == Approx(0.4));
                 CHECK(share_grant(st, st.slots[0], 1) == Approx(0.4));
                 CHECK(share_grant(st, st.slots[0], 2) == Approx(0.2));
                 CHECK(st.effective_gpus == Approx(1.0));
               }}});
  sim = s.sim.get();
  s.run();
  CHECK(s.end("c") == Approx(50));
  CHECK(s.end("b") == Approx(130));
  CHECK(s.end("a") == Approx(170));
}

TEST_CASE("set_share changes a running job's shares after costs.set_share_s", "[share]") {
  // a (min 0.2, max 0.5, 100 s) and b (min 0.2, max 0.3, 30 s), u = 1: caps 0.5 + 0.3 <= 1, so
  // grants 0.5 and 0.3. At 20: a has 10 done, b 6. set_share(a, 0.2, 0.8) costs 5 s: a pauses
  // 20-25, b alone keeps its cap 0.3 (6 + 1.5 = 7.5 done at 25). From 25: caps 0.8 and 0.3 sum
  // 1.1 > 1, level 0.7 -> a 0.7, b 0.3. b: 22.5 left / 0.3 = 75 s, ends at 100; a: 10 + 0.7 x 75
  // = 62.5, then alone at its cap 0.8: 37.5 / 0.8 = 46.875 s, ends at 146.875.
  RuntimeConfig cfg = ideal_shares();
  cfg.costs.set_share_s = 5;
  Scripted s("id,submit_s,workers,duration_s,gpu_util,gpu_share_min,gpu_share_max\n"
             "a,0,1,100,1,0.2,0.5\nb,0,1,30,1,0.2,0.3\n",
             {{0,
               [](Control& c) {
                 c.pack(0, kGpu0);
                 c.pack(1, kGpu0);
               }},
              {20'000'000, [](Control& c) { c.set_share(0, 0.2, 0.8); }}},
             cfg);
  s.run();
  CHECK(s.end("b") == Approx(100));
  CHECK(s.end("a") == Approx(146.875));
  CHECK(s.sim->state().share_max(0) == 0.8);
  CHECK(s.sim->state().share_min(0) == 0.2);
  CHECK(s.sim->state().share_max(1) == 0.3); // b's from its request: no set_share
}

TEST_CASE("set_share refuses shares out of range and a min that does not fit", "[share][errors]") {
  // Guarantees 0.5 (a) + 0.4 (b) = 0.9: a may rise to 0.6 (0.4 + 0.6 = 1), not to 0.7.
  Scripted s("id,submit_s,workers,duration_s,gpu_util,gpu_share_min,gpu_share_max\n"
             "a,0,1,100,1,0.5,1\nb,0,1,100,1,0.4,1\nc,0,1,100,1,,\n",
             {{0, [](Control& c) {
                 c.pack(0, kGpu0);
                 c.pack(1, kGpu0);
                 CHECK_THROWS_WITH(c.set_share(0, 0.7, 0.5), Catch::Contains("0 < min <= max"));
                 CHECK_THROWS_WITH(c.set_share(0, 0, 0.5), Catch::Contains("0 < min <= max"));
                 CHECK_THROWS_WITH(c.set_share(0, 0.5, 1.5), Catch::Contains("0 < min <= max"));
                 CHECK_THROWS_WITH(c.set_share(0, 0.7, 1),
                                   Catch::Contains("0.4 of its share guaranteed to others"));
                 CHECK_THROWS_WITH(c.set_share(2, 0.5, 1), Catch::Contains("not running"));
                 c.cancel(2);
               }}});
  s.run();
}

TEST_CASE("admission refuses a share or memory that does not fit", "[share][errors]") {
  // Guarantees 0.5 + 0.4 = 0.9 held: c's 0.2 does not fit, e's 0.1 does. Memory: the V100 has
  // 16 GB, 5 + 5 = 10 GB held: d's 7 GB would make 17 > 16; e's 6 GB makes exactly 16.
  Scripted s("id,submit_s,workers,duration_s,gpu_util,gpu_share_min,gpu_share_max,gpu_mem_gb\n"
             "a,0,1,100,1,0.5,1,5\nb,0,1,100,1,0.4,1,5\nc,0,1,100,1,0.2,1,1\n"
             "d,0,1,100,1,0.1,1,7\ne,0,1,100,1,0.1,1,6\n",
             {{0, [](Control& c) {
                 c.pack(0, kGpu0);
                 c.pack(1, kGpu0);
                 CHECK_THROWS_WITH(c.pack(2, kGpu0),
                                   Catch::Contains("0.9 of its share guaranteed to others"));
                 CHECK_THROWS_WITH(c.pack(3, kGpu0), Catch::Contains("memory: 10 GB held + 7"));
                 c.pack(4, kGpu0);
                 c.cancel(2);
                 c.cancel(3);
               }}});
  s.run();
}

TEST_CASE("pack onto a device held exclusively is refused", "[share][errors]") {
  // a was placed with start: the GPU is its alone. b's pack used to be accepted, leaving two
  // holders with the first not packed (a state the invariant checker forbids).
  Scripted s("id,submit_s,workers,duration_s,gpu_share_min\na,0,1,100,\nb,0,1,100,0.5\n",
             {{0, [](Control& c) {
                 c.start(0, kGpu0);
                 CHECK_THROWS_WITH(c.pack(1, kGpu0),
                                   Catch::Contains("device 0 is held exclusively by job 'a'"));
                 CHECK(c.check_start(1, kGpu0, true).has_value());
                 c.cancel(1);
               }}});
  s.run();
  CHECK(s.end("a") == Approx(100));
}

TEST_CASE("a whole-device job and shares never mix on a device", "[share][errors]") {
  // a (whole, packed): guarantee 1; b's 0.5 more would make 1.5. The other way round too.
  Scripted s("id,submit_s,workers,duration_s,gpu_share_min\na,0,1,100,\nb,0,1,100,0.5\n",
             {{0, [](Control& c) {
                 c.pack(0, kGpu0);
                 CHECK_THROWS_WITH(c.pack(1, kGpu0), Catch::Contains("1 of its share guaranteed"));
                 c.cancel(1);
               }}});
  s.run();
  Scripted t("id,submit_s,workers,duration_s,gpu_share_min\na,0,1,100,0.5\nb,0,1,100,\n",
             {{0, [](Control& c) {
                 c.pack(0, kGpu0);
                 CHECK_THROWS_WITH(c.pack(1, kGpu0),
                                   Catch::Contains("0.5 of its share guaranteed to others, 1"));
                 c.cancel(1);
               }}});
  t.run();
}

TEST_CASE("share columns: bad values give file:line errors", "[share][errors][trace]") {
  const std::string head = "id,submit_s,workers,duration_s,gpu_share_min,gpu_share_max\n";
  CHECK_THROWS_WITH(trace_from_csv(head + "a,0,1,10,0,1\n"),
                    Catch::Contains(":2: gpu_share_min: must be in (0, 1], got 0"));
  CHECK_THROWS_WITH(trace_from_csv(head + "a,0,1,10,1.5,\n"),
                    Catch::Contains(":2: gpu_share_min: must be in (0, 1], got 1.5"));
  CHECK_THROWS_WITH(trace_from_csv(head + "a,0,1,10,0.5,1.5\n"),
                    Catch::Contains(":2: gpu_share_max: must be in (0, 1], got 1.5"));
  CHECK_THROWS_WITH(trace_from_csv(head + "ok,0,1,10,0.5,\na,0,1,10,0.6,0.5\n"),
                    Catch::Contains(":3: gpu_share_max: must be at least gpu_share_min (0.6), "
                                    "got 0.5"));
  CHECK_THROWS_WITH(
      trace_from_csv("id,submit_s,workers,gpus_per_worker,duration_s,gpu_share_min\n"
                     "a,0,1,2,10,0.5\n"),
      Catch::Contains(":2: gpu_share_min: a share of a device needs gpus_per_worker 1, got 2"));
  CHECK_THROWS_WITH(trace_from_csv("id,submit_s,workers,duration_s,gpu_mem_gb\na,0,1,10,-1\n"),
                    Catch::Contains(":2: gpu_mem_gb: must be positive, got -1"));
  // Defaults: only a min may be granted up to a whole device; only a max is also the min.
  Trace t = trace_from_csv(head + "a,0,1,10,0.25,\nb,0,1,10,,0.5\nc,0,1,10,,\n");
  CHECK(t.jobs[0].gpu_share_min == 0.25);
  CHECK(t.jobs[0].gpu_share_max == 1);
  CHECK(t.jobs[1].gpu_share_min == 0.5);
  CHECK(t.jobs[1].gpu_share_max == 0.5);
  CHECK(t.jobs[2].gpu_share_min == 1);
  // Memory over every usable device's: the V100 has 16 GB.
  Cluster cluster = cluster_from_yaml(kOneGpu);
  CHECK_THROWS_WITH(
      workload_from_csv(cluster, "id,submit_s,workers,duration_s,gpu_mem_gb\na,0,1,10,20\n"),
      Catch::Contains(
          ":2: gpu_mem_gb: job 'a': 20 GB per device; the largest usable device here has 16"));
}

TEST_CASE("gpu-share packs by best fit on the least share left, in FIFO order", "[share][policy]") {
  // Two V100s, all u = 1, max 1, submitted at 0 in this order:
  // a (min 0.5, 100 s): nothing shared yet, a free device: GPU 0.
  // b (min 0.6, 100 s): GPU 0 would hold 0.5 + 0.6 > 1: a free device, GPU 1.
  // c (min 0.3, 40 s): left after it, GPU 0: 1 - 0.5 - 0.3 = 0.2; GPU 1: 1 - 0.6 - 0.3 = 0.1:
  //   best fit is GPU 1 (first fit would take GPU 0).
  // e (whole GPU, 50 s): no free device; it waits at the head.
  // Grants: GPU 0, a alone: its cap 1, ends at 100. GPU 1: floors 0.6 and 0.3, caps 1 and 1:
  // f(0.3) = 0.6 + 0.3 = 0.9, f(0.6) = 1.2, L = 0.3 + 0.1 x 0.3 / 0.3 = 0.4: b 0.6, c 0.4. c ends
  // at 40 / 0.4 = 100; b has 60 done then, alone with cap 1: ends at 140. At 100 GPU 0 is free:
  // e runs 100-150. (With c on GPU 0, c would get 0.5 and end at 80.) At no cost (`ideal`) so
  // that the placement's arithmetic stays round.
  Cluster cluster = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  Workload w = workload_from_csv(
      cluster, "id,submit_s,workers,duration_s,gpu_util,gpu_share_min,gpu_share_max\n"
               "a,0,1,100,1,0.5,1\nb,0,1,100,1,0.6,1\nc,0,1,40,1,0.3,1\ne,0,1,50,1,,\n");
  RunOutput out = run_policy("gpu-share", cluster, w, ideal_shares());
  auto end = [&](const char* name) { return to_seconds(out.state.jobs[job_named(w, name)].end); };
  CHECK(end("a") == Approx(100));
  CHECK(end("c") == Approx(100));
  CHECK(end("b") == Approx(140));
  CHECK(end("e") == Approx(150));
  CHECK(to_seconds(out.state.jobs[job_named(w, "e")].first_start) == Approx(100));
}

TEST_CASE("gpu-share on a mixed trace keeps every invariant and finishes every job",
          "[share][policy]") {
  // 40 jobs on 2 nodes of 2 V100s (16 GB): whole-GPU gangs of 1-2 workers, and share jobs of
  // 1-3 workers with mins 0.1-0.7, maxes up to 1 and 2-9 GB each, arriving every 7 s. The
  // invariant checker (run_policy) checks every decision: guarantees <= 1, grants <= 1, memory
  // within 16 GB, holders never mixed; all jobs must finish.
  std::string csv = "id,submit_s,workers,duration_s,gpu_util,gpu_share_min,gpu_share_max,"
                    "gpu_mem_gb\n";
  for (int i = 0; i < 40; ++i) {
    const int workers = 1 + i % 3;
    const double u = 0.2 + 0.1 * (i % 8);
    if (i % 4 == 3) {
      csv += fmt::format("w{},{},{},{},{},,,\n", i, 7 * i, 1 + i % 2, 30 + 11 * (i % 5), u);
    } else {
      const double lo = 0.1 * (1 + i % 7);
      const double hi = std::min(1.0, lo + 0.1 * (i % 5));
      csv += fmt::format("s{},{},{},{},{},{},{},{}\n", i, 7 * i, workers, 20 + 13 * (i % 6), u, lo,
                         hi, 2 + i % 8);
    }
  }
  Cluster cluster = cluster_from_yaml("nodes:\n  - {count: 2, devices: {V100: 2}}\n");
  Workload w = workload_from_csv(cluster, csv);
  RunOutput out = run_policy("gpu-share", cluster, w);
  CHECK(out.state.finished == 40);
}
