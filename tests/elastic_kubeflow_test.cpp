// The elastic-kubeflow policy (policies/elastic_kubeflow.cpp, docs/policies.md#elastic-kubeflow):
// DRAGON's three phases on tiny clusters. Every expected number is worked out in the comment
// above it. Model-less jobs, linear scaling: a job asking for R workers with duration D runs at
// w / R of its speed on w workers.
#include "sim/engine/error.h"
#include "tests/support/harness.h"
#include "tests/support/invariants.h"

#include <catch2/catch.hpp>

#include <fmt/format.h>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// Records every start and resize: job, time, devices, reason.
struct Recorder final : RunObserver {
  std::vector<std::string> lines;
  [[nodiscard]] bool wants_job_events() const override { return true; }
  void on_job_event(const JobEvent& e, const View& view) override {
    if (e.action != JobAction::kStart && e.action != JobAction::kResize) return;
    std::string devs;
    for (DeviceId d : e.devices)
      devs += (devs.empty() ? "" : " ") + std::to_string(d);
    lines.push_back(fmt::format("{} {} {} [{}] {}", to_seconds(e.time), view.job_name(e.job),
                                to_string(e.action), devs, e.reason));
  }
};

struct Run {
  Cluster cluster;
  Workload workload;
  SimState state;
  Recorder events;

  Run(const std::string& cluster_yaml, const std::string& csv, const RuntimeConfig& config = {},
      const std::string& params = "{}")
      : cluster(cluster_from_yaml(cluster_yaml)), workload(workload_from_csv(cluster, csv)) {
    const PolicyEntry& entry = find_policy("elastic-kubeflow");
    PolicySetup setup{Placement::kConsolidate, resolve_params(entry, YAML::Load(params))};
    auto policy = entry.make(setup);
    Simulation sim(cluster, workload, config, *policy, PolicyInfo{entry.name, false});
    InvariantChecker checker;
    sim.add_observer(&checker);
    sim.add_observer(&events);
    sim.run();
    checker.check_final(sim.state());
    state = sim.state();
  }
  [[nodiscard]] double end(const std::string& name) const {
    return to_seconds(state.jobs[job_named(workload, name)].end);
  }
};

constexpr const char* kOneNode4 = "nodes:\n  - {count: 1, devices: {V100: 4}}\n";
constexpr const char* kTwoNodes4 = "nodes:\n  - {count: 2, devices: {V100: 4}}\n";
constexpr const char* kThreeNodes4 = "nodes:\n  - {count: 3, devices: {V100: 4}}\n";

} // namespace

TEST_CASE("elastic-kubeflow starts a job on one node when one holds it, else spreads",
          "[elastic-kubeflow]") {
  // Three nodes of 4 GPUs (devices 0-3, 4-7, 8-11), all jobs at 0, in arrival order:
  // a (3 workers) fits node 0, the first in id order that holds it: 0 1 2.
  // b (2) does not fit node 0 (1 left) but node 1: 4 5.
  // c (6, min 4) fits no node (1, 2 and 4 free): from node 2, where most fit (4: 8-11), then the
  // others by id: node 0's 3, node 1's 6 (one more): 6 workers, its first (and its parameter
  // server) on node 2.
  Run r(kThreeNodes4, "id,submit_s,workers,min_workers,max_workers,duration_s\n"
                      "a,0,3,3,3,1000\nb,0,2,2,2,1000\nc,0,6,4,6,1000\n");
  REQUIRE(r.events.lines.size() == 3);
  CHECK(r.events.lines[0] == "0 a start [0 1 2] fits on one node");
  CHECK(r.events.lines[1] == "0 b start [4 5] fits on one node");
  CHECK(r.events.lines[2] == "0 c start [8 9 10 11 3 6] spread from the node with the most room");
  CHECK(r.end("c") == 1000);
}

TEST_CASE("elastic-kubeflow grows a job after 60 s without an action", "[elastic-kubeflow]") {
  // One node of 4 GPUs. g asks for 2 workers (elastic 1 to 4), 100 s of work on 2. It starts at
  // 0 on GPUs 0-1 (60 s of work done by 60). Nothing happens until 60: it grows to 4 workers,
  // paying the resize, then runs at twice its speed: 40 s of work in 20 s.
  const std::string csv = "id,submit_s,workers,min_workers,max_workers,duration_s\ng,0,2,1,4,100\n";
  SECTION("flat resize, 5 s: ends at 60 + 5 + 20 = 85 s") {
    Run r(kOneNode4, csv);
    REQUIRE(r.events.lines.size() == 2);
    CHECK(r.events.lines[1] == "60 g resize [0 1 2 3] grow after idle");
    CHECK(r.end("g") == Approx(85).margin(2e-6));
  }
  SECTION("checkpoint-restart of a model-less job, 30 s: 60 + 30 + 20 = 110 s") {
    RuntimeConfig c;
    c.resize = "checkpoint";
    CHECK(Run(kOneNode4, csv, c).end("g") == Approx(110).margin(2e-6));
  }
  SECTION("live, 1 s: 60 + 1 + 20 = 81 s") {
    RuntimeConfig c;
    c.resize = "live";
    CHECK(Run(kOneNode4, csv, c).end("g") == Approx(81).margin(2e-6));
  }
  SECTION("idle_s: 30 grows it at 30: 30 s done, 70 left at twice the speed: 30 + 5 + 35 = 70 s") {
    CHECK(Run(kOneNode4, csv, {}, "{idle_s: 30}").end("g") == Approx(70).margin(2e-6));
  }
}

TEST_CASE("elastic-kubeflow shrinks jobs for a head job that waited 30 s, keeping PS nodes",
          "[elastic-kubeflow]") {
  // Two nodes of 4 GPUs (node 0: 0-3, node 1: 4-7); flat resizes of 5 s.
  // t=0: x1 (3 workers, 1000 s) takes 0 1 2 on node 0. x2 (2, 40 s) finds 1 GPU on node 0 and
  //      takes 4 5 on node 1. r (4 workers asked, 2 to 6, 1 parameter server, 1000 s) fits no
  //      node (1 and 2 free): 6 7 from node 1, then 3: 3 workers; its server sits with worker
  //      0 on node 1.
  // t=40: x2 ends (4 5 free).
  // t=60: 60 s without an action: r grows on its own nodes first, node 1: 6 7 3 4 5 (5 workers).
  // t=100: h (1 worker) arrives: nothing free.
  // t=130: h has waited 30 s. r may lose 3 workers (5 -> min 2); last-added first: 5 and 4 are
  //      on node 1, which holds r's server: kept. 3 on node 0 leaves; that is enough. r keeps
  //      6 7 4 5; h starts on 3.
  // r's progress, in seconds of its 4-worker request: 0-60 at 3/4: 45; 60-65 resizing; 65-130
  // at 5/4: 81.25 (126.25); 130-135 resizing; 135-190 at 1: 55 (181.25).
  // t=190: 60 s after the last action: r could grow but nothing is free.
  // t=230: h (100 s) ends. t=250: r grows onto 3 (5 workers, 250-255 resizing); 135-250 at 1
  // gave 115 (241.25); 758.75 left at 5/4 take 607 s: r ends at 862.
  Run r(kTwoNodes4, "id,submit_s,workers,min_workers,max_workers,ps,duration_s\n"
                    "x1,0,3,3,3,0,1000\nx2,0,2,2,2,0,40\nr,0,4,2,6,1,1000\nh,100,1,1,1,0,100\n");
  std::vector<std::string> expected = {
      "0 x1 start [0 1 2] fits on one node",
      "0 x2 start [4 5] fits on one node",
      "0 r start [6 7 3] spread from the node with the most room",
      "60 r resize [6 7 3 4 5] grow after idle",
      "130 r resize [6 7 4 5] scale down for h",
      "130 h start [3] fits on one node",
      "250 r resize [6 7 4 5 3] grow after idle",
  };
  CHECK(r.events.lines == expected);
  CHECK(r.end("h") == 230);
  CHECK(r.end("r") == Approx(862).margin(2e-6));
  CHECK(r.end("x1") == 1000);
}

TEST_CASE("elastic-kubeflow: a head that cannot fit even after shrinking blocks the queue",
          "[elastic-kubeflow]") {
  // One node of 4 GPUs. a (3 workers, rigid, 100 s) holds 0-2. h (2 workers, 50 s) arrives at
  // 10 and waits. At 40 h has waited 30 s: a is rigid, nothing can be removed, and the queue is
  // blocked (DRAGON skips phase 2 when the scale-down fails): s (1 worker, 50 s), arriving at
  // 45, does not take the free GPU 3. a ends at 100: h takes 0 1 and s 2; both end at 150.
  Run r(kOneNode4, "id,submit_s,workers,duration_s\na,0,3,100\nh,10,2,50\ns,45,1,50\n");
  CHECK(r.end("h") == 150);
  CHECK(r.end("s") == 150);
  // Before h has waited 30 s, a job behind it that fits starts (first fit): s at 20 takes GPU 3
  // at once and ends at 70; h still waits for a.
  Run fit(kOneNode4, "id,submit_s,workers,duration_s\na,0,3,100\nh,10,2,50\ns,20,1,50\n");
  CHECK(fit.end("s") == 70);
  CHECK(fit.end("h") == 150);
}

TEST_CASE("elastic-kubeflow's auto-tuner steps the parameter servers by what it measured",
          "[elastic-kubeflow][ps]") {
  // Two nodes of 4 V100; one vgg16 job of 2 workers x 4 GPUs (one per node), 1 server, 1000
  // iterations, analytic scaling, live resizes (1 s). The runtime's steps (worked in
  // tests/elastic_resize_test.cpp): 0.4009707 s with 1 server, 0.2238187 s with 2.
  // The tuner sees only what it measures. Its speed model's prior: t0 = 0.140 s (the zoo's V100
  // time) x 2 requested workers = 0.28, t1 = t2 = 0. At 0 it measures 0.4009707 s at (w 2, p 1):
  // x = (1/2, 1, 1), |x|^2 = 2.25, ridge lambda = 0.5 x 2.25 / 3 = 0.375; the fit is the prior
  // plus x (T - x.prior) / (lambda + |x|^2) = x (0.4009707 - 0.14) / 2.625 = x 0.0994174:
  // theta = (0.3297087, 0.0994174, 0.0994174). Two servers predict 0.3297087/2 + 0.0994174 +
  // 0.0994174/2 = 0.3139805 s < 0.99 x 0.4009707: set_ps(2) at 0 (p 3 is above w = 2). After the
  // 1 s pause it measures 0.2238187 s; its one neighbour (1 server) was measured slower: it
  // stays. 1000 x 0.2238187 = 223.8187 s after the pause: ends at 224.8187 s.
  RuntimeConfig c;
  c.scaling = "analytic";
  c.resize = "live";
  Run r(kTwoNodes4,
        "id,submit_s,workers,gpus_per_worker,iterations,model,ps\na,0,2,4,1000,vgg16,1\n", c,
        "{tune_ps: true}");
  CHECK(r.state.ps(0) == 2);
  CHECK(r.state.jobs[0].resizes == 1); // tuned once, not back
  CHECK(r.end("a") == Approx(224.8187).margin(1e-3));
}

TEST_CASE("elastic-kubeflow is deterministic", "[elastic-kubeflow]") {
  const std::string csv = "id,submit_s,workers,min_workers,max_workers,ps,duration_s\n"
                          "x1,0,3,3,3,0,1000\nx2,0,2,2,2,0,40\nr,0,4,2,6,1,1000\n"
                          "h,100,1,1,1,0,100\n";
  Run a(kTwoNodes4, csv);
  Run b(kTwoNodes4, csv);
  CHECK(a.events.lines == b.events.lines);
  for (JobId j = 0; j < a.state.jobs.size(); ++j)
    CHECK(a.state.jobs[j].end == b.state.jobs[j].end);
}

TEST_CASE("elastic ranges: bad input names the row", "[elastic-kubeflow][errors]") {
  Cluster c = cluster_from_yaml(kOneNode4);
  // min_workers above max_workers (here above workers, which max_workers is at least).
  CHECK_THROWS_WITH(workload_from_csv(c, "id,submit_s,workers,min_workers,max_workers,duration_s\n"
                                         "a,0,2,3,2,100\n"),
                    Catch::Contains(":2: min_workers: must be between 1 and workers (2), got 3"));
  // max_workers beyond the cluster: 4 GPUs hold at most 4 one-GPU workers.
  CHECK_THROWS_WITH(workload_from_csv(c, "id,submit_s,workers,min_workers,max_workers,duration_s\n"
                                         "a,0,2,1,64,100\n"),
                    Catch::Contains(":2: max_workers: job 'a': 64 workers of 1 device(s) each can "
                                    "never run at once: the cluster holds at most 4 such workers"));
  // Policy parameters: idle_s must be positive.
  const PolicyEntry& e = find_policy("elastic-kubeflow");
  CHECK_THROWS_WITH(
      e.make(PolicySetup{Placement::kConsolidate, resolve_params(e, YAML::Load("{idle_s: 0}"))}),
      Catch::Contains("policy.params.idle_s"));
}

TEST_CASE("elastic-kubeflow: a full job shrunk for the head is woken to grow again",
          "[elastic-kubeflow]") {
  // The policy keeps the jobs that could grow in a list (can_grow), dropping a job found at
  // max_workers; a shrink must put it back, or no wake-up is asked for at last action + idle_s.
  // One node of 4 GPUs; flat resizes of 5 s.
  // t=0: r (4 workers, 2 to 4, 1000 s) takes 0-3: at max_workers, nothing can grow.
  // t=10: h (1 worker, 100 s) arrives: nothing free. t=40: h has waited 30 s: r drops its
  //      last-added worker (3) and h starts there: last action at 40, r could grow: wake at 100.
  // t=100: 60 s without an action: r cannot grow (nothing free); that counts as the action.
  // t=140: h ends (40 s after 100: no growth). t=160: r grows onto 3.
  // (Without the wake-up, r would grow at 140, when h's end makes a decision.)
  // r's progress, in seconds of its 4-worker request: 0-40 at 1: 40; 40-45 resizing; 45-160 at
  // 3/4: 86.25 (126.25); 160-165 resizing; 873.75 left at 1: r ends at 1038.75.
  Run r(kOneNode4, "id,submit_s,workers,min_workers,max_workers,duration_s\n"
                   "r,0,4,2,4,1000\nh,10,1,1,1,100\n");
  std::vector<std::string> expected = {
      "0 r start [0 1 2 3] fits on one node",
      "40 r resize [0 1 2] scale down for h",
      "40 h start [3] fits on one node",
      "160 r resize [0 1 2 3] grow after idle",
  };
  CHECK(r.events.lines == expected);
  CHECK(r.end("h") == 140);
  CHECK(r.end("r") == Approx(1038.75).margin(2e-6));
}

TEST_CASE("elastic-kubeflow grows jobs in start order after finished jobs leave its list",
          "[elastic-kubeflow]") {
  // The running list keeps finished jobs until they are more than half of it, then drops them
  // in place: start order must survive that. One node of 8 GPUs (0-7); flat resizes of 5 s.
  // t=0: p, q (1 worker, 1 to 2, 1000 s) take 0 and 1, x1-x4 (1 worker, 10 s) take 2-5: the
  //      list is p q x1 x2 x3 x4.
  // t=10: x1-x4 end; at the fourth, 4 of the list's 6 are over (4 x 2 > 6): it keeps p q.
  // t=60: 60 s without an action: p grows first, on its node, onto the lowest free GPU, 2; then
  //      q onto 3. (In the wrong order q would take 2 and p 3.)
  Run r("nodes:\n  - {count: 1, devices: {V100: 8}}\n",
        "id,submit_s,workers,min_workers,max_workers,duration_s\n"
        "p,0,1,1,2,1000\nq,0,1,1,2,1000\nx1,0,1,1,1,10\nx2,0,1,1,1,10\n"
        "x3,0,1,1,1,10\nx4,0,1,1,1,10\n");
  REQUIRE(r.events.lines.size() == 8);
  CHECK(r.events.lines[6] == "60 p resize [0 2] grow after idle");
  CHECK(r.events.lines[7] == "60 q resize [1 3] grow after idle");
}
