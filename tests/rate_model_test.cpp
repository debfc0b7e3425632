// The rate model's terms one by one (sim/runtime/rate_model.h), each against a number worked
// out by hand in the comment above it, and the refusal of time slices that leave no time to
// compute (a Gandiva slice <= switch_s finished jobs at t=0; exact slices shorter than
// suspend + resume never ended).
#include "policies/registry.h"
#include "sim/engine/error.h"
#include "sim/network/iteration_time.h"
#include "sim/runtime/rate_model.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

using namespace dlsim;
using namespace dlsim::test;

namespace {

constexpr const char* kOneGpu = "nodes:\n  - {count: 1, devices: {V100: 1}}\n";

DeviceSlot slot_with(std::uint8_t running, double util, std::uint8_t sliced = 0,
                     double slice_s = 0) {
  DeviceSlot slot;
  slot.count = running;
  slot.running = running;
  slot.running_util = util;
  slot.sliced = sliced;
  slot.slice_s = slice_s;
  return slot;
}

} // namespace

TEST_CASE("rate model: device speed reads the (model, device type) table", "[rate_model]") {
  // Two models x two types, row-major by model: model 1 on type 1 is entry 1 x 2 + 1 = 3.
  PerfTable perf;
  perf.type_count = 2;
  perf.iter_time_s = {1.0, 2.0, 0.5, 0.25};
  CHECK(device_iter_s(perf, 1, 1) == 0.25);
  CHECK(device_iter_s(perf, 0, 1) == 2.0);
}

TEST_CASE("rate model: data-parallel workers scale linearly", "[rate_model]") {
  // A job asked for 4 workers at 2 s per iteration. With 2 workers: 2 x 4 / 2 = 4 s; with 8:
  // 2 x 4 / 8 = 1 s.
  CHECK(scaled_iter_s(2.0, 4, 2) == 4.0);
  CHECK(scaled_iter_s(2.0, 4, 8) == 1.0);
  CHECK(scaled_iter_s(2.0, 4, 4) == 2.0);
}

TEST_CASE("rate model: time slices cost one switch each", "[rate_model][timeslice]") {
  // 60 s slices, 1 s switch: 59/60 of the time computes; two jobs each get half: 2 / (59/60)
  // = 120/59 = 2.0339 slowdown.
  CHECK(timeslice_efficiency(1, 60) == Approx(59.0 / 60));
  CHECK(timeslice_slowdown(2, 1, 60) == Approx(120.0 / 59));
  // Three jobs, 10 s slices, 0.5 s switch: 3 / 0.95 = 3.1579.
  CHECK(timeslice_slowdown(3, 0.5, 10) == Approx(3 / 0.95));
  // A slice no longer than the switch leaves nothing to compute: no rate exists.
  CHECK(timeslice_efficiency(1, 1) == 0);
  CHECK_THROWS_WITH(timeslice_slowdown(2, 1, 0.25), Catch::Contains("not longer than the switch"));
}

TEST_CASE("rate model: interference grows with summed utilization", "[rate_model]") {
  // slope 2.5, onset 0.8: U = 0.6 -> 1; U = 1.2 -> 1 + 2.5 x 0.4 = 2; U = 2.0 -> 1 + 2.5 x 1.2
  // = 4.
  Interference m;
  CHECK(interference_slowdown(m, 0.6) == 1.0);
  CHECK(interference_slowdown(m, 1.2) == Approx(2.0));
  CHECK(interference_slowdown(m, 2.0) == Approx(4.0));
}

TEST_CASE("rate model: a fractional share slows only a job that needs more", "[rate_model]") {
  // A 0.25 share of a job that keeps a GPU 50% busy alone: 0.25 / 0.5 = half speed. At 20%
  // busy the share covers it: full speed. At exactly its utilization: full speed.
  CHECK(share_speed(0.25, 0.5) == Approx(0.5));
  CHECK(share_speed(0.25, 0.2) == 1.0);
  CHECK(share_speed(0.4, 0.4) == 1.0);
}

TEST_CASE("rate model: the network term adds unhidden communication", "[rate_model]") {
  // compute 3 s, exchange 2 s, half of it overlappable: 1 s exposed outright, the other 1 s hides
  // behind 2/3 x 3 = 2 s of backward pass: iteration 3 + 1 = 4 s. Input of 5 s per iteration
  // sets the pace instead: 5 s.
  CHECK(iteration_seconds(3, 2, 0.5, 0) == Approx(4.0));
  CHECK(iteration_seconds(3, 2, 0.5, 5) == Approx(5.0));
}

TEST_CASE("rate model: one device's slowdown and effective utilization", "[rate_model]") {
  RuntimeConfig cfg; // switch_s 1, interference slope 2.5 onset 0.8
  // Alone: 1, effective = its utilization.
  CHECK(device_slowdown(slot_with(1, 0.6), cfg, 0) == 1.0);
  CHECK(device_effective(slot_with(1, 0.6), cfg, 0) == Approx(0.6));
  // Two packed at 0.6 + 0.6 = 1.2: slowdown 2; effective is the useful work, each job at half
  // its solo speed: min(1, 1.2 / 2) = 0.6 (not min(1, 1.2) = 1).
  CHECK(device_slowdown(slot_with(2, 1.2), cfg, 0) == Approx(2.0));
  CHECK(device_effective(slot_with(2, 1.2), cfg, 0) == Approx(0.6));
  // Below the onset, 0.3 + 0.4 = 0.7: slowdown 1, nothing lost: 0.7. Above the cap without
  // enough slowdown (onset 1, slope 0.1): 1.6 / (1 + 0.1 x 0.6) = 1.509 -> capped at 1.
  CHECK(device_effective(slot_with(2, 0.7), cfg, 0) == Approx(0.7));
  RuntimeConfig mild;
  mild.interference.onset = 1.0;
  mild.interference.slope = 0.1;
  CHECK(device_effective(slot_with(2, 1.6), mild, 0) == 1.0);
  // Two sliced every 60 s, utilizations 0.6 and 0.4: slowdown 120/59; effective is their mean
  // 0.5 times 59/60 = 0.49167.
  CHECK(device_slowdown(slot_with(2, 1.0, 2, 60), cfg, 0) == Approx(120.0 / 59));
  CHECK(device_effective(slot_with(2, 1.0, 2, 60), cfg, 0) == Approx(0.5 * 59 / 60));
}

TEST_CASE("rate model: a job's rate composes the terms", "[rate_model]") {
  // A job asked for 2 workers at 2 s per iteration holds 1 device, packed with another job at a
  // summed utilization of 1.2 (slowdown 2): 2 x 2 / 1 x 2 = 8 s per iteration, rate 1/8.
  Workload w;
  w.perf.type_count = 1;
  w.perf.iter_time_s = {2.0};
  JobSpec spec;
  spec.request.workers = 2;
  w.jobs.push_back(spec);
  Cluster c = cluster_from_yaml(kOneGpu);
  SimState s;
  s.cluster = &c;
  s.workload = &w;
  s.jobs.resize(1);
  s.jobs[0].type = 0;
  s.jobs[0].workers = 1;
  s.jobs[0].devices.assign(std::vector<DeviceId>{0});
  s.slots.push_back(slot_with(2, 1.2));
  CHECK(job_rate(s, 0, nullptr) == Approx(1.0 / 8));
  // Alone on it: 4 s per iteration.
  s.slots[0] = slot_with(1, 0.6);
  CHECK(job_rate(s, 0, nullptr) == Approx(1.0 / 4));
}

TEST_CASE("timeslice refuses a slice no longer than the switch", "[rate_model][errors]") {
  // With costs.switch_s = 1, a 1 s slice would be all switching.
  Cluster cluster = cluster_from_yaml(kOneGpu);
  Workload w = workload_from_csv(cluster, "id,submit_s,workers,duration_s\na,0,1,100\n");
  bool refused = false;
  ScriptPolicy policy({{0, [&](Control& c) {
                          CHECK_THROWS_WITH(c.timeslice(0, std::vector<DeviceId>{0}, 1.0),
                                            Catch::Contains("not longer than costs.switch_s = 1"));
                          refused = true;
                          c.start(0, std::vector<DeviceId>{0});
                        }}});
  Simulation sim(cluster, w, RuntimeConfig{}, policy, PolicyInfo{"script", false});
  sim.run();
  CHECK(refused);
}

namespace {

std::unique_ptr<Policy> gandiva_with(const std::string& params) {
  const PolicyEntry& e = find_policy("gandiva");
  return e.make(PolicySetup{Placement::kConsolidate, resolve_params(e, YAML::Load(params))});
}

} // namespace

TEST_CASE("gandiva's slice must be longer than the switch (else jobs finish at t=0)",
          "[rate_model][gandiva][errors]") {
  // slice_s 0.25 with the default switch_s 1 would give a 1e12 slowdown, an int64 overflow
  // and jobs marked finished with a fraction of their work: the run does not start.
  Cluster cluster = cluster_from_yaml(kOneGpu);
  Workload w = workload_from_csv(cluster, "id,submit_s,workers,duration_s\nx,0,1,3600\n");
  auto p = gandiva_with("{slice_s: 0.25}");
  CHECK_THROWS_AS(Simulation(cluster, w, RuntimeConfig{}, *p, PolicyInfo{"gandiva", false}),
                  InputError);
  CHECK_THROWS_WITH(Simulation(cluster, w, RuntimeConfig{}, *p, PolicyInfo{"gandiva", false}),
                    Catch::Contains("policy.params.slice_s: a slice of 0.25 s is not longer "
                                    "than costs.switch_s = 1 s"));
  // Equal is refused too: 1 s slices, 1 s switches.
  auto equal = gandiva_with("{slice_s: 1}");
  CHECK_THROWS_AS(Simulation(cluster, w, RuntimeConfig{}, *equal, PolicyInfo{"gandiva", false}),
                  InputError);
}

TEST_CASE("gandiva's exact slices must outlast suspend + resume (else the run hangs)",
          "[rate_model][gandiva][errors]") {
  // suspend 5 s + resume 5 s = 10 s per turn change; an 8 s slice ended before its job resumed,
  // so turns rotated forever with no progress. Now refused at set-up; 11 s works.
  Cluster cluster = cluster_from_yaml(kOneGpu);
  Workload w = workload_from_csv(cluster, "id,submit_s,workers,duration_s\nx,0,1,30\ny,0,1,30\n");
  auto p = gandiva_with("{exact_slices: true, slice_s: 8}");
  CHECK_THROWS_WITH(Simulation(cluster, w, RuntimeConfig{}, *p, PolicyInfo{"gandiva", false}),
                    Catch::Contains("costs.suspend_s + costs.resume_s = 10 s"));
  auto ok = gandiva_with("{exact_slices: true, slice_s: 11}");
  Simulation sim(cluster, w, RuntimeConfig{}, *ok, PolicyInfo{"gandiva", false});
  RunResult r = sim.run();
  CHECK(r.unfinished == 0);
  // Both finished all their work (30 iterations of 1 s on the V100 each).
  for (JobId j = 0; j < 2; ++j)
    CHECK(sim.state().jobs[j].done == Approx(w.jobs[j].iterations));
}

TEST_CASE("dlsim run refuses gandiva's short slice with the key named, writing nothing",
          "[rate_model][gandiva][errors][cli]") {
  ScratchDir dir;
  Outcome r = run_dlsim(
      "run -q --policy gandiva --set policy.params.slice_s=0.25 --out " + dir.file("res"), dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("policy.params.slice_s"));
  CHECK_FALSE(std::filesystem::exists(dir.file("res/summary.json")));
}
