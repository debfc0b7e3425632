// The share controller's cost (docs/runtime.md#fractional-shares): under runtime.share.model
// `token` a job granted g of a device's token time runs at (1 - h) x min(1, g x e / u) of its solo
// speed, e = quota / (quota + handoff), and its cap is u / e; `ideal` keeps min(1, g / u). Every
// expected number is worked out in the comment above it, with h = 0.1, quota 0.09 s and handoff
// 0.01 s (e = 0.9) so that the arithmetic stays round.
#include "sim/runtime/rate_model.h"
#include "tests/support/harness.h"
#include "tests/support/scripted_run.h"

#include <catch2/catch.hpp>

#include <memory>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// h = 0.1, e = 0.09 / (0.09 + 0.01) = 0.9.
RuntimeConfig round_token() {
  RuntimeConfig c;
  c.share.model = "token";
  c.share.hook_overhead = 0.1;
  c.share.quota_s = 0.09;
  c.share.handoff_s = 0.01;
  return c;
}

RuntimeConfig ideal() {
  RuntimeConfig c;
  c.share.model = "ideal";
  return c;
}

// One V100, the first `jobs` jobs packed onto GPU 0 at 0 by a scripted policy, run to the end with
// the invariant checker (tests/support/scripted_run.h).
std::unique_ptr<ScriptedRun> packed_on_one_gpu(const std::string& csv, RuntimeConfig cfg,
                                               JobId jobs = 2) {
  const std::vector<DeviceId> gpu0{0};
  auto run = std::make_unique<ScriptedRun>(
      "nodes:\n  - {count: 1, devices: {V100: 1}}\n", csv,
      std::vector<ScriptPolicy::Step>{{0,
                                       [gpu0, jobs](Control& c) {
                                         for (JobId j = 0; j < jobs; ++j)
                                           c.pack(j, gpu0);
                                       }}},
      std::move(cfg));
  run->run();
  return run;
}

const char* const kHeader = "id,submit_s,workers,duration_s,gpu_util,gpu_share_min,gpu_share_max\n";

} // namespace

TEST_CASE("share cost: the token controller's speed by hand", "[share][rate_model]") {
  const ShareController token = round_token().share;
  // e = 0.09 / 0.1 = 0.9; the default's: 0.3 / 0.301 = 0.99668.
  CHECK(share_token_efficiency(token) == Approx(0.9));
  CHECK(share_token_efficiency(ShareController{}) == Approx(0.3 / 0.301));
  CHECK(share_token_efficiency(ideal().share) == 1.0);
  // Grant 0.25, u 0.5: 0.9 x min(1, 0.25 x 0.9 / 0.5) = 0.9 x 0.45 = 0.405.
  CHECK(controller_speed(token, 0.25, 0.5) == Approx(0.405));
  // Grant 0.5, u 0.2: the share covers the job, only the hook costs: 0.9.
  CHECK(controller_speed(token, 0.5, 0.2) == Approx(0.9));
  // Ideal: min(1, 0.25 / 0.5) = 0.5, and 1 when covered.
  CHECK(controller_speed(ideal().share, 0.25, 0.5) == Approx(0.5));
  CHECK(controller_speed(ideal().share, 0.5, 0.2) == 1.0);
  // The defaults: 0.99 x min(1, 0.25 x 0.3 / 0.301 / 0.5) = 0.99 x 0.498339 = 0.493355.
  CHECK(controller_speed(ShareController{}, 0.25, 0.5) == Approx(0.493355).epsilon(1e-5));
}

TEST_CASE("share cost: one share alone", "[share]") {
  // u 0.5 at a fixed share 0.25 (min = max): cap max(0.25, min(0.25, 0.5 / 0.9)) = 0.25, grant
  // 0.25, speed 0.405 (above): 100 s of work end at 100 / 0.405 = 246.9136 s. Ideal: 0.5, 200 s.
  const std::string fixed = std::string(kHeader) + "a,0,1,100,0.5,0.25,0.25\n";
  CHECK(packed_on_one_gpu(fixed, round_token(), 1)->end_s("a") == Approx(246.913580));
  CHECK(packed_on_one_gpu(fixed, ideal(), 1)->end_s("a") == Approx(200));
  // u 0.45, min 0.1, max 1: cap min(1, 0.45 / 0.9) = 0.5, granted whole (caps sum <= 1); speed
  // 0.9 x min(1, 0.5 x 0.9 / 0.45) = 0.9: 100 / 0.9 = 111.1111 s. Ideal: cap 0.45, speed 1, 100 s.
  const std::string loose = std::string(kHeader) + "a,0,1,100,0.45,0.1,1\n";
  CHECK(packed_on_one_gpu(loose, round_token(), 1)->end_s("a") == Approx(111.111111));
  CHECK(packed_on_one_gpu(loose, ideal(), 1)->end_s("a") == Approx(100));
}

TEST_CASE("share cost: two tenants take turns and pay the handoffs", "[share]") {
  // a (100 s) and b (50 s), u 1, min 0.5, max 1: caps min(1, 1 / 0.9) = 1, floors 0.5: grants
  // 0.5 / 0.5. Speed 0.9 x 0.5 x 0.9 = 0.405 each: b ends at 50 / 0.405 = 123.456790 s, when a
  // has 50 s of work left; alone, a is granted 1 and runs at 0.9 x 0.9 = 0.81: 50 / 0.81 =
  // 61.728395 s more, to 185.185185 s. Ideal: 0.5 each, b at 100 s, a at 100 + 50 = 150 s.
  const std::string csv = std::string(kHeader) + "a,0,1,100,1,0.5,1\nb,0,1,50,1,0.5,1\n";
  auto token = packed_on_one_gpu(csv, round_token());
  CHECK(token->end_s("b") == Approx(123.456790));
  CHECK(token->end_s("a") == Approx(185.185185));
  auto free = packed_on_one_gpu(csv, ideal());
  CHECK(free->end_s("b") == Approx(100));
  CHECK(free->end_s("a") == Approx(150));
}

TEST_CASE("share cost: maxima summing over 1 are water-filled on token time", "[share]") {
  // a (100 s, u 0.6, min 0.3, max 0.8), b (60 s, u 0.54, min 0.2, max 0.8). Caps: a min(0.8,
  // 0.6 / 0.9) = 0.6667, b min(0.8, 0.54 / 0.9) = 0.6, summing to 1.27 > 1; f(L) = clamp(L, 0.3,
  // 0.6667) + clamp(L, 0.2, 0.6) = 1 at L = 0.5: grants 0.5 / 0.5. Speeds: a 0.9 x 0.45 / 0.6 =
  // 0.675, b 0.9 x 0.45 / 0.54 = 0.75. b ends at 60 / 0.75 = 80 s; a has done 80 x 0.675 = 54,
  // then alone granted its cap 0.6667, speed 0.9 x min(1, 0.6667 x 0.9 / 0.6) = 0.9: 46 / 0.9 =
  // 51.1111 s more, to 131.1111 s.
  // Ideal: caps 0.6 and 0.54 (sum 1.14), L = 0.5, speeds 0.5 / 0.6 = 0.8333 and 0.5 / 0.54 =
  // 0.9259: b ends at 60 x 0.54 / 0.5 = 64.8 s, a has done 64.8 x 0.8333 = 54, then runs alone at
  // full speed: 46 s more, to 110.8 s.
  const std::string csv = std::string(kHeader) + "a,0,1,100,0.6,0.3,0.8\nb,0,1,60,0.54,0.2,0.8\n";
  auto token = packed_on_one_gpu(csv, round_token());
  CHECK(token->end_s("b") == Approx(80));
  CHECK(token->end_s("a") == Approx(131.111111));
  auto free = packed_on_one_gpu(csv, ideal());
  CHECK(free->end_s("b") == Approx(64.8));
  CHECK(free->end_s("a") == Approx(110.8));
}

TEST_CASE("share cost: tenants under the controller never pay co-location interference",
          "[share][interference]") {
  // The two-tenant case above under a steep slide's line (slope 10, onset 0: summed utilization
  // 2 would slow packed jobs 1 + 10 x 2 = 21x): the token controller serializes kernels, so the
  // times stay 123.456790 and 185.185185 s.
  RuntimeConfig steep = round_token();
  steep.interference_model = "slide";
  steep.interference.slope = 10;
  steep.interference.onset = 0;
  const std::string shared = std::string(kHeader) + "a,0,1,100,1,0.5,1\nb,0,1,50,1,0.5,1\n";
  auto token = packed_on_one_gpu(shared, steep);
  CHECK(token->end_s("b") == Approx(123.456790));
  CHECK(token->end_s("a") == Approx(185.185185));
  // The same jobs packed as whole-device jobs (no share: uncontrolled) run at once and pay the
  // line: 21x, so b ends at 50 x 21 = 1050 s; a has done 50 of its 100 s and ends 50 s later, at
  // 1100 s (the controller's cost does not apply to them).
  const std::string whole = "id,submit_s,workers,duration_s,gpu_util\na,0,1,100,1\nb,0,1,50,1\n";
  auto packed = packed_on_one_gpu(whole, steep);
  CHECK(packed->end_s("b") == Approx(1050));
  CHECK(packed->end_s("a") == Approx(1100));
}
