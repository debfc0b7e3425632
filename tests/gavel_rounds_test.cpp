// Gavel's round-based mechanism (policies/gavel/gavel_policy.cpp) on small clusters whose
// schedules can be followed by hand.
#include "support/harness.h"
#include "support/invariants.h"

#include "policies/registry.h"
#include "sim/engine/error.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace {

SimState run_gavel(const std::string& name, const std::string& params, const Cluster& c,
                   const Workload& w) {
  const PolicyEntry& entry = find_policy(name);
  PolicySetup setup{Placement::kConsolidate, resolve_params(entry, YAML::Load(params))};
  auto policy = entry.make(setup);
  Simulation sim(c, w, RuntimeConfig{}, *policy, PolicyInfo{name, entry.oracle});
  InvariantChecker checker;
  sim.add_observer(&checker);
  sim.run();
  checker.check_final(sim.state());
  return sim.state();
}

double end_s(const SimState& s, const Workload& w, const std::string& job) {
  return to_seconds(s.jobs[job_named(w, job)].end);
}

const char* const kOneByOne = "nodes:\n  - {count: 1, devices: {V100: 1}}\n"
                              "  - {count: 1, devices: {K80: 1}}\n";
// Zoo times (configs/models/zoo.yaml): lstm 0.0154 s per iteration on a V100, 0.058 on a K80;
// resnet50 0.128 and 0.81. Both jobs take 1000 s on the reference V100.
const char* const kLstmResnet = "id,submit_s,workers,duration_s,model\n"
                                "l1,0,1,1000,lstm\nr1,0,1,1000,resnet50\n";

} // namespace

TEST_CASE("gavel-throughput moves a job to the faster type when it frees", "[gavel][policies]") {
  Cluster c = cluster_from_yaml(kOneByOne);
  Workload w = workload_from_csv(c, kLstmResnet);
  // t = 0: sum of iterations/s, lstm on V100 + resnet50 on K80 = 1/0.0154 + 1/0.81 = 66.17,
  // against resnet50 on V100 + lstm on K80 = 1/0.128 + 1/0.058 = 25.05: X puts lstm on the V100,
  // resnet50 on the K80. Both start at 0 (start cost 0); lstm ends at 1000.
  // The round at 1080 (3 x 360) solves again for resnet50 alone: the V100. It has done
  // 1080 / (1000 x 0.81 / 0.128) = 1080 / 6328.125 of its work; it migrates (10 s) and does the
  // rest on the V100: 1080 + 10 + 1000 x (1 - 1080 / 6328.125) = 1919.33 s.
  SimState s = run_gavel("gavel-throughput", "{round_s: 360}", c, w);
  CHECK(end_s(s, w, "l1") == Approx(1000).epsilon(1e-6));
  CHECK(end_s(s, w, "r1") == Approx(1080 + 10 + 1000 * (1 - 1080 / 6328.125)).epsilon(1e-6));
  CHECK(s.jobs[job_named(w, "r1")].migrations == 1);
}

TEST_CASE("gavel-max-min shares one type round by round", "[gavel][policies]") {
  // Three 3600-s jobs on two V100s: X = 2/3 for each (max-min of equal time shares), so each
  // round two of them run and the one furthest behind its share goes first. Over three rounds
  // each runs two: the work (3 x 3600 s on 2 devices = 5400 s) ends for all three within a round
  // of 5400 s, plus the suspend and resume costs (5 + 5 s) of at most one preemption every
  // round (15 rounds by 5400 s). Without the rounds (las with no interval) two would end at
  // 3600 and the third at 7200.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,model\n"
                                    "a,0,1,3600,resnet50\nb,0,1,3600,resnet50\n"
                                    "c,0,1,3600,resnet50\n");
  for (const char* params : {"{hetero: true}", "{hetero: false}"}) {
    INFO(params);
    SimState s = run_gavel("gavel-max-min", params, c, w);
    for (const char* job : {"a", "b", "c"}) {
      INFO(job);
      CHECK(end_s(s, w, job) > 5400 - 360);
      CHECK(end_s(s, w, job) < 5400 + 360 + 15 * 10);
      CHECK(s.jobs[job_named(w, job)].preemptions >= 2);
    }
  }
}

TEST_CASE("gavel-finish-time and gavel-makespan run every job to the end", "[gavel][policies]") {
  Cluster c = cluster_from_yaml(kOneByOne);
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,model\n"
                                    "l1,0,1,1000,lstm\nr1,0,1,1000,resnet50\n"
                                    "l2,500,1,300,lstm\n");
  for (const char* policy : {"gavel-finish-time", "gavel-makespan"}) {
    INFO(policy);
    CHECK(find_policy(policy).oracle);
    SimState s = run_gavel(policy, "{}", c, w);
    for (const JobState& j : s.jobs)
      CHECK(j.status == JobStatus::kFinished);
  }
}

TEST_CASE("gavel policies refuse a round that is not a positive time", "[gavel][policies]") {
  const PolicyEntry& entry = find_policy("gavel-max-min");
  // The declared range refuses it as the parameters are read, before any policy is made.
  CHECK_THROWS_WITH(resolve_params(entry, YAML::Load("{round_s: 0}")),
                    Catch::Contains("policy.params.round_s: expected seconds > 0, got 0"));
  // A round no longer than a move: the defaults' suspend 5 s + resume 5 s = 10 s, migrate 10 s.
  PolicySetup short_round{Placement::kConsolidate,
                          resolve_params(entry, YAML::Load("{round_s: 10}"))};
  auto policy = entry.make(short_round);
  CHECK_THROWS_WITH(policy->check_config(RuntimeConfig{}),
                    Catch::StartsWith("policy.params.round_s: a round of 10 s is not longer than "
                                      "a move between rounds"));
  PolicySetup long_enough{Placement::kConsolidate,
                          resolve_params(entry, YAML::Load("{round_s: 10.5}"))};
  CHECK_NOTHROW(entry.make(long_enough)->check_config(RuntimeConfig{}));
}

TEST_CASE("gavel: a job that came after the last solve waits for the next one",
          "[gavel][policies]") {
  // Two V100s; a (3000 s) at 0, b (50 s) at 10; rounds of 100 s. With reset_s 1000 the allocation
  // solved at 0 (a alone) stands until the round at 1000: b has no X before then, so, as in
  // Gavel's code, the V100 it would take stays idle, and b runs from 1000 to 1050 (a first start
  // costs nothing). With reset_s 0 the round at 100 solves again: b runs from 100 to 150.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,model\n"
                                    "a,0,1,3000,resnet50\nb,10,1,50,resnet50\n");
  SimState late = run_gavel("gavel-max-min", "{round_s: 100, reset_s: 1000}", c, w);
  CHECK(to_seconds(late.jobs[job_named(w, "b")].first_start) == Approx(1000));
  CHECK(end_s(late, w, "b") == Approx(1050));
  SimState every = run_gavel("gavel-max-min", "{round_s: 100, reset_s: 0}", c, w);
  CHECK(to_seconds(every.jobs[job_named(w, "b")].first_start) == Approx(100));
  CHECK(end_s(every, w, "b") == Approx(150));
}
