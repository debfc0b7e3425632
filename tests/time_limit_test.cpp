// Time that cannot overflow: every conversion from seconds is checked against
// kMaxSeconds = 4e9 s (sim/engine/time.h), and inputs that would wrap int64 microseconds are
// errors naming the key. int64 microseconds hold 9223372036854775807 us = 9.223e12 s, so
// 9.3e12 s x 1e6 = 9.3e18 us does not fit: that is the wrap-around the check prevents.
#include "tests/support/harness.h"

#include "policies/registry.h"
#include "sim/engine/error.h"
#include "sim/engine/time.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("seconds convert exactly up to the limit and are refused beyond it", "[time]") {
  // 4e9 s x 1e6 = 4e15 us, below 2^53 = 9007199254740992: exact as a double too.
  CHECK(kMaxTime == 4'000'000'000'000'000);
  CHECK(from_seconds(4e9) == 4'000'000'000'000'000);
  CHECK(from_seconds(-4e9) == -4'000'000'000'000'000);
  CHECK(static_cast<double>(kMaxTime + kMaxTime) < 9007199254740992.0);
  CHECK_THROWS_WITH(from_seconds(9.3e12, "until_s"),
                    Catch::StartsWith("until_s: 9300000000000 s is beyond dlsim's time limit"));
  CHECK_THROWS_AS(from_seconds(4.000001e9), InputError);
  CHECK_THROWS_WITH(from_seconds_ceil(1e300, "policy.params.thresholds"),
                    Catch::StartsWith("policy.params.thresholds: 1e+300 s is beyond"));
  CHECK_THROWS_WITH(from_seconds(std::nan(""), "x"), Catch::Contains("NaN"));
  CHECK_THROWS_AS(from_seconds(HUGE_VAL), InputError);
}

TEST_CASE("a time after now is checked, a wake-up beyond the limit never comes", "[time]") {
  // 3.9e9 s + 10 s = 3.90000001e9 s: inside. 3.999999995e9 + 10 = 4.000000005e9: outside.
  CHECK(time_after(from_seconds(3.9e9), 10, "costs.suspend_s") == 3'900'000'010'000'000);
  CHECK_THROWS_WITH(time_after(from_seconds(3.999999995e9), 10, "costs.suspend_s"),
                    Catch::StartsWith("costs.suspend_s: 10 s after 3999999995 s ends at "
                                      "4000000005 s, beyond dlsim's time limit"));
  // Rounded up: 1.5 us after 0 is 2 us; exactly the limit is still a time; 1 us past is not.
  CHECK(wakeup_after(0, 1.5e-6) == 2);
  CHECK(wakeup_after(kMaxTime - 1'000'000, 1.0) == kMaxTime);
  CHECK(wakeup_after(kMaxTime - 1'000'000, 1.000001) == kNever);
  CHECK(wakeup_after(0, 1e300) == kNever);
  CHECK(wakeup_after(0, HUGE_VAL) == kNever);
}

namespace {

Cluster four_nodes(const char* nic_gbit_s) {
  return cluster_from_yaml(
      fmt::format("nodes:\n  - {{count: 4, devices: {{V100: 4}}, nvlink: true, nic_gbit_s: {}}}\n",
                  nic_gbit_s));
}

RuntimeConfig with_contention() {
  RuntimeConfig c;
  c.network.contention = true;
  return c;
}

} // namespace

TEST_CASE("a NIC so slow that a job could not finish within the limit is an error, not a wrap",
          "[time][network]") {
  // vgg16 on 4 workers spread over 4 nodes: a ring all-reduce sends 2 x 3/4 x 553.6 MB = 830.4 MB
  // per flow each iteration (network_test.cpp works the same case at 25 Gbit/s).
  // At 0.001 Gbit/s = 125,000 B/s: 830.4e6 / 1.25e5 = 6643.2 s of communication per iteration,
  // of which at most the backward window (0.0933 s) hides: over 6643 s per iteration, so 1000
  // iterations take more than 6.643e6 s.
  Workload w = workload_from_csv(four_nodes("0.001"),
                                 "id,submit_s,workers,iterations,model\nj,0,4,1000,vgg16\n");
  RunOutput slow = run_policy("fifo", four_nodes("0.001"), w, with_contention(), "spread");
  CHECK(to_seconds(slow.state.jobs[0].end) > 6.643e6);
  CHECK(to_seconds(slow.state.jobs[0].end) < 6.65e6);
  // At 1e-9 Gbit/s = 0.125 B/s: 830.4e6 / 0.125 = 6.6432e9 s per iteration, 6.6e12 s for 1000:
  // beyond 4e9 s. Before, (remaining / rate) x 1e6 = 6.6e18 us was cast to int64 past its range
  // (undefined; clang's UBSan flagged simulation.cpp) and the job "finished" before the 0.001
  // Gbit/s one. Now the run stops with an error naming the job.
  Workload w2 = workload_from_csv(four_nodes("1e-9"),
                                  "id,submit_s,workers,iterations,model\nj,0,4,1000,vgg16\n");
  CHECK_THROWS_WITH(run_policy("fifo", four_nodes("1e-9"), w2, with_contention(), "spread"),
                    Catch::StartsWith("job 'j': at ") &&
                        Catch::Contains("beyond dlsim's time limit of 4000000000 s"));
}

TEST_CASE("an action cost that would end beyond the limit is an error naming the key", "[time]") {
  // One job of 100 s submitted at 0, start cost 3.9e9 s: it runs from 3.9e9 s to 3.9e9 + 100 s.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  RuntimeConfig config;
  config.costs.start_s = 3.9e9;
  Workload one = workload_from_csv(c, "id,submit_s,workers,duration_s\na,0,1,100\n");
  RunOutput r = run_policy("fifo", c, one, config);
  CHECK(r.state.jobs[0].end == from_seconds(3.9e9 + 100));
  // Two such jobs on one GPU: b starts when a ends, at 3.9e9 + 100 s, and its start would end
  // 3.9e9 s later, at 7.8e9 + 100 s: past the limit.
  Workload two = workload_from_csv(c, "id,submit_s,workers,duration_s\na,0,1,100\nb,0,1,100\n");
  CHECK_THROWS_WITH(run_policy("fifo", c, two, config),
                    Catch::StartsWith("costs.start_s / costs.resume_s: 3900000000 s after "
                                      "3900000100 s ends at 7800000100 s"));
}

TEST_CASE("time keys, flags and policy parameters beyond the limit are refused at the start",
          "[time][cli]") {
  ScratchDir dir;
  struct Case {
    std::string args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           // Before: makespan -9223372036854.775 and 0 jobs finished.
           {"--until 9.3e12", "--until: 9300000000000 s is beyond dlsim's time limit"},
           // Before: no effect at all (the wrapped start time lay in the past).
           {"--set costs.start_s=9.3e12", "costs.start_s: 9300000000000 s is beyond"},
           {"--set report.sample_s=5e9", "report.sample_s: 5000000000 s is beyond"},
           // Before: undefined behaviour in from_seconds_ceil(1e300 x 1e6).
           {"--policy tiresias --set policy.params.thresholds=[1e300]",
            "policy.params.thresholds: 1e+300 s is beyond"},
           {"--policy gandiva --set policy.params.slice_s=1e13",
            "policy.params.slice_s: 10000000000000 s is beyond"},
           {"--policy las --set policy.params.interval_s=1e13",
            "policy.params.interval_s: 10000000000000 s is beyond"},
       }) {
    Outcome r = run_dlsim("run -q " + c.args + " --out " + dir.file("r"), dir);
    INFO(c.args << "\n" << r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains(c.message));
    CHECK_FALSE(std::filesystem::exists(dir.file("r/summary.json")));
  }
}

TEST_CASE("a tiresias threshold whose crossing lies beyond the limit runs normally",
          "[time][cli]") {
  // Two 1-GPU jobs of 100 s submitted at 1e9 s (time origin 0) on 8 GPUs: both run at once.
  // Each would cross its 3.99e9 GPU-second threshold at 1e9 + 3.99e9 = 4.99e9 s, beyond the
  // 4e9 s limit: that wake-up is dropped (wakeup_after gives kNever), and both jobs finish at
  // 1e9 + 100 s.
  ScratchDir dir;
  std::string trace =
      dir.write("t.csv", "id,submit_s,workers,duration_s\na,1e9,1,100\nb,1e9,1,100\n");
  Outcome r = run_dlsim(
      "run -q --cluster configs/clusters/tiny.yaml --time-origin 0 --trace " + trace +
          " --policy tiresias --set policy.params.thresholds=[3.99e9] --out " + dir.file("r"),
      dir);
  REQUIRE(r.code == 0);
  std::string jobs = read_file(dir.file("r/jobs.csv"));
  // Both jobs run their 100 s at once on the two GPUs; the columns after status are not checked.
  CHECK_THAT(jobs, Catch::Contains("\na,1000000000,1000000000,1000000100,100,0,100,1,1,0,0,"
                                   "finished,"));
  CHECK_THAT(jobs, Catch::Contains("\nb,1000000000,1000000000,1000000100,100,0,100,1,1,0,0,"
                                   "finished,"));
}

TEST_CASE("unsigned flags refuse negative numbers", "[cli]") {
  ScratchDir dir;
  // Before: Boost read "-1" as 2^64 - 1 = 18446744073709551615 and ran with that seed.
  Outcome seed = run_dlsim("run -q --seed -1 --out " + dir.file("r"), dir);
  CHECK(seed.code == 2);
  CHECK_THAT(seed.err, Catch::Contains("'-1'") && Catch::Contains("--seed") &&
                           Catch::Contains("expected a whole number"));
  CHECK_FALSE(std::filesystem::exists(dir.file("r")));
  // Before: -5 became 2^64 - 5 jobs and gen-trace wrote 18 GB before it was killed.
  Outcome n = run_dlsim("gen-trace -n -5 --out " + dir.file("t.csv"), dir);
  CHECK(n.code == 2);
  CHECK_THAT(n.err, Catch::Contains("'-5'"));
  CHECK_FALSE(std::filesystem::exists(dir.file("t.csv")));
  CHECK(run_dlsim("run -q --sample -3 --out " + dir.file("r"), dir).code == 2);
  CHECK(run_dlsim("gen-trace --seed 1x", dir).code == 2);
  // A seed as large as 2^64 - 1 is still a seed.
  CHECK(run_dlsim("gen-trace -n 3 --seed 18446744073709551615 --out " + dir.file("t.csv"), dir)
            .code == 0);
}
