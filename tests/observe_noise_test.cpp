// Measurement noise on what policies observe (runtime.observe.noise, sim/runtime/observe_noise.h;
// docs/runtime.md#what-policies-may-observe).
#include "sim/runtime/observe_noise.h"
#include "tests/support/scripted_run.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("observation noise: a seeded factor within 1 +- noise", "[observe][noise]") {
  // noise 0: exact. noise 0.1: 1 + 0.1 u with u in [-1, 1): within [0.9, 1.1); the same
  // (seed, job, time, kind) gives the same factor; over 10,000 instants the mean of u is 0 with a
  // standard error of (1/sqrt(3)) / sqrt(10000) = 0.0058, so the mean factor is 1 within 0.1 x
  // 4 x 0.0058 = 0.0023 (four standard errors).
  CHECK(observe_factor(0, 1, 0, 0, Reading::kIterationTime) == 1.0);
  const double f = observe_factor(0.1, 7, 3, 5'000'000, Reading::kIterationTime);
  CHECK(f >= 0.9);
  CHECK(f < 1.1);
  CHECK(f == observe_factor(0.1, 7, 3, 5'000'000, Reading::kIterationTime));
  CHECK(f != observe_factor(0.1, 8, 3, 5'000'000, Reading::kIterationTime)); // another seed
  CHECK(f != observe_factor(0.1, 7, 4, 5'000'000, Reading::kIterationTime)); // another job
  CHECK(f != observe_factor(0.1, 7, 3, 5'000'001, Reading::kIterationTime)); // another time
  CHECK(f != observe_factor(0.1, 7, 3, 5'000'000, Reading::kGpuUtil));       // another kind
  double sum = 0, lo = 2, hi = 0;
  for (SimTime t = 0; t < 10'000; ++t) {
    const double g = observe_factor(0.1, 7, 3, t * 1'000'000, Reading::kIterationTime);
    sum += g;
    lo = std::min(lo, g);
    hi = std::max(hi, g);
  }
  CHECK(std::abs(sum / 10'000 - 1.0) < 0.0023);
  CHECK(lo >= 0.9);
  CHECK(hi < 1.1);
  CHECK(lo < 0.91); // the draws do cover the range
  CHECK(hi > 1.09);
}

TEST_CASE("observation noise reaches measured_iteration_s and measured_gpu_util, not the run",
          "[observe][noise]") {
  // One 1-GPU job of 100 s (utilization 0.5) alone on one V100, started at 0. With noise 0.2 the
  // policy's reading of its time per iteration at 70 s is 1/rate x (1 + 0.2 u): within [0.8, 1.2)
  // of the truth, the same when read twice, and its utilization (profiled for 60 s by 70 s) is
  // 0.5 x (1 + 0.2 u) within [0.4, 0.6). The job itself still ends at 100 s: noise changes what
  // is seen, not what happens.
  RuntimeConfig cfg;
  cfg.observe_noise = 0.2;
  double ratio = 0, again = 0, util = 0;
  ScriptedRun r("nodes:\n  - {count: 1, devices: {V100: 1}}\n",
                "id,submit_s,workers,duration_s,gpu_util\na,0,1,100,0.5\n",
                {{0, [](Control& c) { c.start(0, device_range(0, 1)); }},
                 {70'000'000,
                  [&](Control& c) {
                    ratio = c.measured_iteration_s(0) * c.state(0).rate;
                    again = c.measured_iteration_s(0) * c.state(0).rate;
                    util = c.measured_gpu_util(0).value_or(-1);
                  }}},
                cfg);
  r.run();
  CHECK(ratio >= 0.8);
  CHECK(ratio < 1.2);
  CHECK(ratio != 1.0);
  CHECK(again == ratio);
  CHECK(util >= 0.4);
  CHECK(util < 0.6);
  CHECK(util != 0.5);
  CHECK(to_seconds(r.sim->state().jobs[0].end) == Approx(100).margin(1e-6));
}
