// k8s-default's scheduling queue kept across decisions (policies/k8s_default.cpp): a pod that
// found no node waits in its shape's queue without being tried again until a node gains free
// resources it could use, and is then bound in PrioritySort order. Tiny clusters have cpu_cores =
// 8 and memory_gb = 64 per device by default; these jobs ask for no host CPUs or memory.
#include "policies/registry.h"
#include "sim/runtime/observer.h"
#include "tests/support/harness.h"
#include "tests/support/invariants.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

struct Bind {
  double time_s;
  JobId job;
  std::vector<DeviceId> devices;
};

// Records every bind event.
class Binds final : public RunObserver {
public:
  [[nodiscard]] bool wants_job_events() const override { return true; }
  void on_job_event(const JobEvent& e, const View&) override {
    if (e.action == JobAction::kBind) {
      binds.push_back({to_seconds(e.time), e.job, {e.devices.begin(), e.devices.end()}});
    }
  }
  std::vector<Bind> binds;
};

} // namespace

TEST_CASE("k8s-default keeps an unschedulable pod waiting until a node frees what it needs",
          "[policy][k8s]") {
  // Node 0: V100 devices 0-3; node 1: K80 devices 4-5. Pods are created 0.1 s apart.
  //   a: 1 x 2 V100, 100 s, at 0       b: 2 x 2 V100, 50 s, at 0
  //   k: 1 x 2 K80, 10 s, at 0         c: 1 x 2 V100, 20 s, at 10, priority 1
  // t = 0: a0 -> V100 0,1 (a starts, ends 100); b0 -> V100 2,3 (b binds, holds them idle, no
  //   gang); k0 -> K80 4,5.
  // t = 0.1: b1 is created; no V100 is free: its shape (2 V100 per pod) is marked unschedulable.
  // t = 10: c0 is created with the same shape: it joins the queue and is not tried.
  // k's finish frees the K80s: no V100 among them, the mark stays (and nothing changes).
  // t = 100: a ends, V100 0,1 free: the mark is lifted. The queue is in PrioritySort order, c0
  //   (priority 1) before b1: c0 -> V100 0,1, c starts (ends 120); b1 finds no node again.
  // t = 120: c ends: b1 -> V100 0,1; b starts with 0-3 and ends 170.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 4}}\n"
                                "  - {count: 1, devices: {K80: 2}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s,"
                                    "device_type,priority\n"
                                    "a,0,1,2,100,V100,0\n"
                                    "b,0,2,2,50,V100,0\n"
                                    "k,0,1,2,10,K80,0\n"
                                    "c,10,1,2,20,V100,1\n");
  for (const char* params : {"{}", "{scoring: MostAllocated}"}) {
    const PolicyEntry& entry = find_policy("k8s-default");
    auto policy =
        entry.make(PolicySetup{Placement::kConsolidate, resolve_params(entry, YAML::Load(params))});
    Simulation sim(c, w, RuntimeConfig{}, *policy, PolicyInfo{"k8s-default", entry.oracle});
    InvariantChecker checker;
    Binds binds;
    sim.add_observer(&checker);
    sim.add_observer(&binds);
    RunResult result = sim.run();
    checker.check_final(sim.state());
    CAPTURE(params);
    CHECK(result.unfinished == 0);
    const JobId b = job_named(w, "b");
    const JobId cj = job_named(w, "c");
    std::vector<Bind> of_b;
    for (const Bind& x : binds.binds)
      if (x.job == b) of_b.push_back(x);
    REQUIRE(of_b.size() == 2);
    CHECK(of_b[0].time_s == 0);
    CHECK(of_b[0].devices == std::vector<DeviceId>{2, 3});
    CHECK(of_b[1].time_s == 120);
    CHECK(of_b[1].devices == std::vector<DeviceId>{0, 1});
    const auto& jobs = sim.state().jobs;
    CHECK(to_seconds(jobs[cj].first_start) == 100);
    CHECK(to_seconds(jobs[cj].end) == 120);
    CHECK(to_seconds(jobs[b].first_start) == 120);
    CHECK(to_seconds(jobs[b].end) == 170);
  }
}
