// Gandiva (policies/gandiva/) and the hyper-parameter search sessions (workloads/
// hyperparam_search, policy `automl`), on tiny clusters. Every expected number is worked out
// in the comment above it.
#include "policies/registry.h"
#include "sim/cli/policy_setup.h"
#include "sim/engine/error.h"
#include "tests/support/harness.h"
#include "tests/support/invariants.h"
#include "workloads/build_workload.h"
#include "workloads/gen_trace.h"
#include "workloads/hyperparam_search.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <sys/wait.h>

using namespace dlsim;
using namespace dlsim::test;

namespace {

constexpr const char* kOneGpu = "nodes:\n  - {count: 1, devices: {V100: 1}}\n";
constexpr const char* kTwoByTwo = "nodes:\n  - {count: 2, devices: {V100: 2}}\n";
constexpr const char* kTwoByFour = "nodes:\n  - {count: 2, devices: {V100: 4}}\n";
constexpr const char* kFourGpus = "nodes:\n  - {count: 1, devices: {V100: 4}}\n";

// Records every job's devices right after the first decision.
class FirstDecision final : public RunObserver {
public:
  void on_decided(const View& view) override {
    if (!devices.empty()) return;
    for (JobId j = 0; j < view.job_count(); ++j)
      devices.push_back(view.state(j).devices.to_vector());
  }
  std::vector<std::vector<DeviceId>> devices;
};

struct Run {
  Cluster cluster;
  Workload workload;
  SimState state;
  RunResult result;

  Run(const std::string& cluster_yaml, const std::string& csv, const std::string& policy,
      const std::string& params, const RuntimeConfig& config = {}, RunObserver* extra = nullptr)
      : cluster(cluster_from_yaml(cluster_yaml)), workload(workload_from_csv(cluster, csv)) {
    const PolicyEntry& entry = find_policy(policy);
    PolicySetup setup = make_policy_setup(entry, Placement::kConsolidate, YAML::Load(params));
    auto p = entry.make(setup);
    Simulation sim(cluster, workload, config, *p, PolicyInfo{policy, entry.oracle});
    InvariantChecker checker;
    sim.add_observer(&checker);
    if (extra) sim.add_observer(extra);
    result = sim.run();
    checker.check_final(sim.state());
    state = sim.state();
  }
  const JobState& job(const std::string& name) const {
    return state.jobs[job_named(workload, name)];
  }
  double end(const std::string& name) const { return to_seconds(job(name).end); }
};

RuntimeConfig costs(double suspend, double resume, double migrate = 10, double resize = 5) {
  RuntimeConfig c;
  c.costs.suspend_s = suspend;
  c.costs.resume_s = resume;
  c.costs.migrate_s = migrate;
  c.costs.resize_s = resize;
  c.costs.switch_s = 1;
  return c;
}

} // namespace

TEST_CASE("gandiva time-slices two 1-GPU jobs on one GPU", "[gandiva][timeslice]") {
  // x (100 s) and y (50 s) arrive at 0 on one GPU. x gets it; y finds no free device and joins
  // x's group: they take turns in 60 s slices, losing the 1 s switch of every slice. Each runs
  // at (1/2)(1 - 1/60) = 59/120 of its speed. y's 50 s of work take 50 x 120/59 = 101.694915 s;
  // x has done 50 s of work by then, and alone runs its last 50 s at full speed: 151.694915 s.
  Run r(kOneGpu, "id,submit_s,workers,duration_s\nx,0,1,100\ny,0,1,50\n", "gandiva",
        "{packing: false}");
  CHECK(r.end("y") == Approx(50.0 * 120 / 59).margin(2e-6));
  CHECK(r.end("x") == Approx(50.0 * 120 / 59 + 50).margin(2e-6));
  CHECK(r.job("x").preemptions == 0);
}

TEST_CASE("exact slices emit the turns and agree with the fluid share within the overhead",
          "[gandiva][timeslice]") {
  // The same jobs with exact_slices: one switch = suspend_s (1 s) + resume_s (0 s), the fluid
  // model's switch_s. x runs 0-60 (60 s done); y joined at 0 and its first slice is due at 60:
  // x is suspended 60-61, y starts at 61 (its slice ends at 60 + 60 = 120) and needs only 50 s:
  // y ends at 111. x resumes at once (no switch: y is gone) and runs its last 40 s: x ends at
  // 151. Fluid: y 101.694915, x 151.694915. The modes agree on the makespan within one switch
  // (0.69 s < 1 s) and on each job within one slice (y: 9.3 s < 60 s): the fluid share is the
  // average of the slices, not their order.
  RuntimeConfig cfg = costs(1, 0);
  Run exact(kOneGpu, "id,submit_s,workers,duration_s\nx,0,1,100\ny,0,1,50\n", "gandiva",
            "{exact_slices: true}", cfg);
  CHECK(exact.end("y") == Approx(111).margin(1e-6));
  CHECK(exact.end("x") == Approx(151).margin(1e-6));
  CHECK(exact.job("x").preemptions == 1);
  Run fluid(kOneGpu, "id,submit_s,workers,duration_s\nx,0,1,100\ny,0,1,50\n", "gandiva",
            "{packing: false}", cfg);
  CHECK(std::abs(to_seconds(exact.result.end) - to_seconds(fluid.result.end)) < cfg.costs.switch_s);
  for (const char* j : {"x", "y"})
    CHECK(std::abs(exact.end(j) - fluid.end(j)) < 60);
}

TEST_CASE("exact slices rotate through three jobs in turn", "[gandiva][timeslice]") {
  // a, b, c (30 s each) on one GPU, slices of 10 s, switch = suspend 1 s. a: 0-10 (10 done);
  // switch 10-11; b: 11-20 (9 done, its slice ends at 10 + 10); switch 20-21; c: 21-30 (9);
  // switch 30-31; a: 31-40 (19); b: 41-50 (18); c: 51-60 (18); a: 61-70 (28); b: 71-80 (27);
  // c: 81-90 (27); a: 91-93 (30: ends at 93); b resumes at 93 with no switch (a is gone) and
  // needs 3 s: ends at 96; c resumes at 96 and ends at 99.
  RuntimeConfig cfg = costs(1, 0);
  Run r(kOneGpu, "id,submit_s,workers,duration_s\na,0,1,30\nb,0,1,30\nc,0,1,30\n", "gandiva",
        "{exact_slices: true, slice_s: 10}", cfg);
  CHECK(r.end("a") == Approx(93).margin(1e-6));
  CHECK(r.end("b") == Approx(96).margin(1e-6));
  CHECK(r.end("c") == Approx(99).margin(1e-6));
  CHECK(r.job("a").preemptions == 3);
}

TEST_CASE("gandiva packs two low-utilization jobs and keeps them packed when it pays",
          "[gandiva][packing]") {
  // a (util 0.4) and b (util 0.5), 100 s each, on one GPU. At 0 they time-slice, each at
  // (1/2)(59/60) = 59/120 of its speed; introspection knows their solo rates (sliced rate x 2 /
  // (59/60) = 1 iteration/s), but their utilization only once the profiler has watched each for
  // profile_s = 60 s in its own turns, 59/120 of the time: at 60 x 120/59 = 122.033899 s
  // (rounded up to the microsecond), with 60 iterations done. 0.4 + 0.5 = 0.9 <= pack_util_limit
  // 1.0: both are suspended (5 s) and packed (resume 5 s), from 132.033899 s. Packed, U = 0.9:
  // slowdown 1 + 2.5 (0.9 - 0.8) = 1.25, each at 0.8 of its speed. Measured: 0.8 + 0.8 = 1.6 >=
  // time-slicing's 59/60: kept. 40 iterations at 0.8/s: both end at 132.033899 + 50 =
  // 182.033899 s (time-slicing alone would end both at 100 x 120/59 = 203.4 s).
  Run r(kOneGpu, "id,submit_s,workers,duration_s,gpu_util\na,0,1,100,0.4\nb,0,1,100,0.5\n",
        "gandiva", "{}", costs(5, 5));
  CHECK(r.end("a") == Approx(60.0 * 120 / 59 + 10 + 50).margin(2e-6));
  CHECK(r.end("b") == Approx(60.0 * 120 / 59 + 10 + 50).margin(2e-6));
  CHECK(r.job("a").packed);
}

namespace {

// The first decision at which job 0 runs packed, and job 0's measured utilization at each
// decision.
class PackWatch final : public RunObserver {
public:
  void on_decided(const View& view) override {
    util_at.emplace_back(view.now(), view.measured_gpu_util(0));
    if (packed_at < 0 && view.state(0).packed && view.state(0).status == JobStatus::kRunning)
      packed_at = view.now();
  }
  SimTime packed_at = -1;
  std::vector<std::pair<SimTime, std::optional<double>>> util_at;
};

} // namespace

TEST_CASE("gandiva packs only once the profiler has measured both jobs for profile_s",
          "[gandiva][packing][profile]") {
  // a (util 0.4) and b (0.5), on the one V100, take turns from 0 with no switching cost (switch
  // 0, suspend and resume 0): the profiler watches each in its own turns, half of the time, so
  // each has 59 s of measurement at 118 s and 60 s = runtime.profile_s at 120 s. c arrives at 118
  // s on the K80 (a decision then): a's utilization is still unknown and the pair stays sliced.
  // At 120 s (the wake-up Gandiva asked for) both are known, 0.4 + 0.5 <= 1: packed at 120 s.
  RuntimeConfig cfg = costs(0, 0);
  cfg.costs.switch_s = 0;
  PackWatch watch;
  Run r("nodes:\n  - {count: 1, devices: {V100: 1}}\n  - {count: 1, devices: {K80: 1}}\n",
        "id,submit_s,workers,duration_s,gpu_util,device_type\na,0,1,300,0.4,V100\n"
        "b,0,1,300,0.5,V100\nc,118,1,10,0.3,K80\n",
        "gandiva", "{}", cfg, &watch);
  CHECK(watch.packed_at == 120'000'000);
  bool decided_at_118 = false;
  for (const auto& [t, util] : watch.util_at) {
    if (t == 118'000'000) {
      decided_at_118 = true;
      CHECK_FALSE(util.has_value()); // 59 s of measurement
    }
    if (t == 120'000'000) {
      REQUIRE(util.has_value()); // 60 s
      CHECK(*util == Approx(0.4));
    }
  }
  CHECK(decided_at_118);
  CHECK(r.job("a").packed);
}

TEST_CASE("gandiva unpacks a pair when introspection measures packing worse",
          "[gandiva][packing]") {
  // As above, with a harsher interference model (slope 20): packed at 10 s, U = 0.9 gives a
  // slowdown of 1 + 20 x 0.1 = 3, each at 1/3. Measured: 1/3 + 1/3 = 0.67 < 59/60: at 10 both
  // are suspended again (to 15) and time-sliced (resume to 20); the pair is never packed again.
  // Sliced, each at 59/120: 100 iterations take 203.389831 s: both end at 223.389831 s. The
  // policy saw only the measured time per iteration, not the interference model.
  RuntimeConfig cfg = costs(5, 5);
  cfg.interference.slope = 20;
  Run r(kOneGpu, "id,submit_s,workers,duration_s,gpu_util\na,0,1,100,0.4\nb,0,1,100,0.5\n",
        "gandiva", "{}", cfg);
  CHECK(r.end("a") == Approx(20 + 100.0 * 120 / 59).margin(2e-6));
  CHECK(r.end("b") == Approx(20 + 100.0 * 120 / 59).margin(2e-6));
  CHECK(r.job("a").preemptions == 2); // suspended to pack, then to unpack
  CHECK(r.job("a").sliced);
}

TEST_CASE("gandiva does not pack jobs whose utilization sums above the limit",
          "[gandiva][packing]") {
  // Two model-less jobs take the default utilization 0.52: 1.04 > 1.0, so they stay sliced:
  // 100 s each at 59/120: both end at 203.389831 s.
  Run r(kOneGpu, "id,submit_s,workers,duration_s\na,0,1,100\nb,0,1,100\n", "gandiva", "{}");
  CHECK(r.end("a") == Approx(100.0 * 120 / 59).margin(2e-6));
  CHECK(r.job("a").preemptions == 0);
}

TEST_CASE("gandiva migrates a job to free a node for a 2-GPU job, paying migrate_s",
          "[gandiva][migration]") {
  // Two nodes of 2 GPUs. a (100 s) takes GPU 0 (node 0); b (30 s) joins its class on node 0 (GPU
  // 1); d (100 s) finds node 0 full and takes GPU 2 (node 1). At 30 b ends: one GPU free on each
  // node. At 40, c needs 2 GPUs on one node: defragmentation moves one 1-GPU job across (one
  // migration either way; node 0 first): a goes to GPU 3 at 40, migrating 40-42 (migrate_s 2).
  // a did 40 s by 40 and its other 60 s end at 102. c runs on GPUs 0-1 from 40: ends at 90.
  RuntimeConfig cfg = costs(5, 5, 2);
  Run r(kTwoByTwo,
        "id,submit_s,workers,gpus_per_worker,duration_s\na,0,1,1,100\nb,0,1,1,30\nd,0,1,1,100\nc,"
        "40,1,2,50\n",
        "gandiva", "{}", cfg);
  CHECK(r.end("a") == Approx(102).margin(1e-6));
  CHECK(r.job("a").migrations == 1);
  CHECK(r.end("c") == Approx(90).margin(1e-6));
  CHECK(to_seconds(r.job("c").first_start) == Approx(40));
  CHECK(r.end("d") == Approx(100).margin(1e-6));
}

TEST_CASE("gandiva grows an elastic job on idle GPUs and shrinks it when a job waits",
          "[gandiva][grow]") {
  // One node of 4 GPUs, resize_s 5. e: 100 s on 1 worker, elastic up to 4. At 0 it starts on
  // GPU 0 and, nothing waiting, grows to 4 workers (resizing 0-5), then runs at 4 iterations/s:
  // 60 done by 20. At 20 f arrives: e shrinks back to 1 worker (20-25) and f takes GPU 1. At 25
  // nothing waits: e grows onto GPUs 2-3 (3 workers, 25-30), then 40 left at 3/s: ends at
  // 30 + 13.333333 = 43.333333 s. f (50 s) ends at 70.
  RuntimeConfig cfg = costs(5, 5, 10, 5);
  Run r(kFourGpus,
        "id,submit_s,workers,duration_s,min_workers,max_workers\ne,0,1,100,1,4\nf,20,1,50,1,1\n",
        "gandiva", "{}", cfg);
  CHECK(r.end("e") == Approx(30 + 40.0 / 3).margin(2e-6));
  CHECK(r.job("e").resizes == 3);
  CHECK(r.end("f") == Approx(70).margin(1e-6));
  // Without grow-shrink e runs on its one GPU for 100 s.
  Run plain(
      kFourGpus,
      "id,submit_s,workers,duration_s,min_workers,max_workers\ne,0,1,100,1,4\nf,20,1,50,1,1\n",
      "gandiva", "{grow_shrink: false}", cfg);
  CHECK(plain.end("e") == Approx(100).margin(1e-6));
}

TEST_CASE("gandiva places by affinity: own class, then idle nodes, then other classes",
          "[gandiva][affinity]") {
  // Two nodes of 4 GPUs (0-3, 4-7). a (1 GPU) lands on node 0 (both idle: the lower id). b (2
  // GPUs on one node) avoids node 0, which now holds the 1-GPU class, for idle node 1: GPUs 4-5.
  // c (1 GPU) goes to node 0 with its class: GPU 1. d (2 GPUs) joins b's class on node 1: 6-7.
  // e (1 GPU): node 0 has its class and 2 free GPUs: GPU 2.
  FirstDecision first;
  Run r(kTwoByFour,
        "id,submit_s,workers,gpus_per_worker,duration_s\na,0,1,1,100\nb,0,1,2,100\nc,0,1,1,100\nd,"
        "0,1,2,100\ne,0,1,1,100\n",
        "gandiva", "{}", {}, &first);
  auto devs = [&](const char* name) { return first.devices[job_named(r.workload, name)]; };
  CHECK(devs("a") == std::vector<DeviceId>{0});
  CHECK(devs("b") == std::vector<DeviceId>{4, 5});
  CHECK(devs("c") == std::vector<DeviceId>{1});
  CHECK(devs("d") == std::vector<DeviceId>{6, 7});
  CHECK(devs("e") == std::vector<DeviceId>{2});
}

TEST_CASE("gandiva spreads a time-sliced group when a GPU frees", "[gandiva][migration]") {
  // One node of 2 GPUs, migrate_s 2. a (100 s) and w (20 s) take GPUs 0 and 1; c (100 s) joins
  // a's group (the oldest of two equal loads): a and c run at 59/120. At 20 w ends, GPU 1 is
  // free and c (the newest member) migrates there (20-22). By 20, a and c each did 20 x 59/120
  // = 9.830508; a then runs alone: ends at 20 + 90.169492 = 110.169492; c resumes at 22: ends at 22
  // + 90.169492 = 112.169492.
  RuntimeConfig cfg = costs(5, 5, 2);
  Run r("nodes:\n  - {count: 1, devices: {V100: 2}}\n",
        "id,submit_s,workers,duration_s\na,0,1,100\nw,0,1,20\nc,0,1,100\n", "gandiva", "{}", cfg);
  CHECK(r.end("w") == Approx(20).margin(1e-6));
  CHECK(r.end("a") == Approx(20 + (100 - 20 * 59.0 / 120)).margin(2e-6));
  CHECK(r.end("c") == Approx(22 + (100 - 20 * 59.0 / 120)).margin(2e-6));
  CHECK(r.job("c").migrations == 1);
}

TEST_CASE("gandiva parameters are checked", "[gandiva][errors]") {
  const PolicyEntry& e = find_policy("gandiva");
  auto make = [&](const std::string& yaml) {
    return e.make(PolicySetup{Placement::kConsolidate, resolve_params(e, YAML::Load(yaml))});
  };
  CHECK_THROWS_WITH(make("{slice_s: 0}"),
                    Catch::Contains("policy.params.slice_s: expected seconds > 0, got 0"));
  CHECK_THROWS_WITH(make("{pack_util_limit: -1}"),
                    Catch::Contains("policy.params.pack_util_limit: expected a number >= 0"));
  CHECK_THROWS_WITH(make("{slices: 3}"), Catch::Contains("policy 'gandiva' has no such parameter"));
}

TEST_CASE("gandiva replays a synthetic trace with every invariant checked, twice the same",
          "[gandiva][e2e]") {
  // 150 Philly-like jobs on 4 x 8 GPUs: every job finishes once, devices are never over-committed
  // (the invariant checker), and two runs give the same end times.
  std::ostringstream csv;
  GenTraceOptions g;
  g.jobs = 150;
  g.seed = 3;
  g.arrival_rate_per_hour = 200;
  generate_trace(g, csv);
  std::string text = csv.str();
  std::string cluster = "nodes:\n  - {count: 4, devices: {V100: 8}}\n";
  Run a(cluster, text, "gandiva", "{}", costs(5, 5, 1, 5));
  Run b(cluster, text, "gandiva", "{}", costs(5, 5, 1, 5));
  CHECK(a.result.unfinished == 0);
  for (JobId j = 0; j < a.state.jobs.size(); ++j)
    CHECK(a.state.jobs[j].end == b.state.jobs[j].end);
}

// ---- hyper-parameter search sessions -------------------------------------------------------

TEST_CASE("the learning curve reaches the final accuracy at the full budget", "[automl]") {
  // a (1 - e^{-p/tau}) / (1 - e^{-1/tau}) at p = 1 is a; at p = 0 it is 0.
  CHECK(learning_curve(0.8, 0.25, 1) == Approx(0.8));
  CHECK(learning_curve(0.8, 0.25, 0) == Approx(0));
  // a = 0.95, tau = 0.25, target 0.9: 1 - e^{-4} = 0.9816844; x 0.9/0.95 = 0.9300168;
  // p = -0.25 ln(1 - 0.9300168) = -0.25 ln(0.0699832) = 0.6648749.
  CHECK(*progress_to_reach(0.95, 0.25, 0.9) == Approx(0.6648749).epsilon(1e-6));
  CHECK_FALSE(progress_to_reach(0.85, 0.25, 0.9).has_value());
}

namespace {

// A trace of only the sessions' trials (as gen-trace --sessions writes them) and the automl
// policy over `scheduler`.
struct SearchRun {
  ScratchDir dir;
  std::unique_ptr<Run> run;

  SearchRun(const std::string& cluster, const std::string& sessions_yaml,
            const std::string& scheduler, const std::string& scheduler_params = "{}") {
    std::string file = dir.write("sessions.yaml", sessions_yaml);
    std::ostringstream trace;
    merge_trials_into_trace("id,submit_s,workers,gpus_per_worker,duration_s,user\n",
                            load_search_sessions(file), trace);
    run = std::make_unique<Run>(cluster, trace.str(), "automl",
                                "{sessions: " + file + ", scheduler: " + scheduler +
                                    ", scheduler_params: " + scheduler_params + "}");
  }
};

// Three trials of 100 s, all with final accuracy 0.8 (below the 0.9 target), one rung at 0.3
// keeping ceil(0.33 x 3) = 1 of 3, no noise: ties keep the lowest trial index.
constexpr const char* kThreeTrials = "sessions:\n  - {name: s, submit_s: 0, trials: 3, budget_s: "
                                     "100, accuracy: {low: 0.8, high: 0.8},\n"
                                     "     target: 0.9, rungs: [0.3], keep: 0.33, noise: 0}\n";

} // namespace

TEST_CASE("successive halving under gandiva kills at the rung once every trial reaches it",
          "[automl]") {
  // Gandiva time-slices the three trials on the one GPU: each at (1/3)(59/60) = 59/180. They
  // reach 30% of the budget (30 iterations) together at 30 x 180/59 = 91.525424 s: s-t1 and s-t2
  // are cancelled there; s-t0 runs its other 70 s alone: ends at 161.525424 s.
  SearchRun r(kOneGpu, kThreeTrials, "gandiva");
  CHECK(r.run->job("s-t0").status == JobStatus::kFinished);
  CHECK(r.run->end("s-t0") == Approx(30.0 * 180 / 59 + 70).margin(3e-6));
  for (const char* t : {"s-t1", "s-t2"}) {
    CHECK(r.run->job(t).status == JobStatus::kCancelled);
    CHECK(r.run->end(t) == Approx(30.0 * 180 / 59).margin(2e-6));
  }
}

TEST_CASE("successive halving under fifo gets no early feedback", "[automl]") {
  // FIFO runs the trials one after the other: s-t0 0-100 and s-t1 100-200 run to the end before
  // s-t2 has reached the rung, so nothing can be killed; at 230 s-t2 reaches it alone and is
  // kept. The search ends at 300, against 161.5 s under time-slicing.
  SearchRun r(kOneGpu, kThreeTrials, "fifo");
  CHECK(r.run->end("s-t0") == Approx(100));
  CHECK(r.run->end("s-t1") == Approx(200));
  CHECK(r.run->end("s-t2") == Approx(300));
  CHECK(r.run->job("s-t2").status == JobStatus::kFinished);
}

TEST_CASE("a session stops every trial once one reaches the target", "[automl]") {
  // Accuracy 0.95 for all: each reaches 0.9 at 66.48749% of its budget (the curve test above),
  // so its job is 66.487488 s of work. FIFO runs s-t0 first: it reaches the target at 66.487489 s
  // (rounded up to the microsecond) and the session stops: s-t1 and s-t2, still waiting, are
  // cancelled the moment FIFO starts them, having run 0 s.
  SearchRun r(kOneGpu,
              "sessions:\n  - {name: s, submit_s: 0, trials: 3, budget_s: 100, accuracy: {low: "
              "0.95, high: 0.95},\n"
              "     target: 0.9, rungs: [0.3], noise: 0}\n",
              "fifo");
  CHECK(r.run->end("s-t0") == Approx(66.487489).margin(2e-6));
  for (const char* t : {"s-t1", "s-t2"}) {
    CHECK(r.run->job(t).status == JobStatus::kCancelled);
    CHECK(r.run->end(t) == Approx(66.487489).margin(2e-6));
    CHECK(r.run->job(t).run_time == 0);
  }
  CHECK(r.run->result.unfinished == 0);
}

TEST_CASE("successive halving keeps the trials observed best at the rung", "[automl]") {
  // Ten trials with accuracies drawn in [0.5, 0.85] (none reaches 0.9) on 10 GPUs under Gandiva:
  // all run at full speed and reach the rung (0.2) together at 20 s, where the 4 best by
  // observed accuracy (curve value + noise) are kept: ceil(0.34 x 10) = 4. The expected set is
  // recomputed from the drawn truth, whose noise is small next to the accuracy spread.
  const std::string yaml = "sessions:\n  - {name: h, submit_s: 0, trials: 10, budget_s: 100, "
                           "accuracy: {low: 0.5, high: 0.85},\n"
                           "     rungs: [0.2], keep: 0.34, noise: 0.005, seed: 7}\n";
  SearchRun r("nodes:\n  - {count: 1, devices: {V100: 10}}\n", yaml, "gandiva");
  ScratchDir d;
  auto trials = draw_trials(load_search_sessions(d.write("s.yaml", yaml))[0]);
  std::vector<std::pair<double, std::string>> observed;
  observed.reserve(trials.size());
  for (const auto& t : trials)
    observed.emplace_back(learning_curve(t.accuracy, 0.25, 0.2) + t.rung_noise[0], t.job);
  std::sort(observed.rbegin(), observed.rend());
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const JobState& s = r.run->job(observed[i].second);
    CHECK(s.status == (i < 4 ? JobStatus::kFinished : JobStatus::kCancelled));
    if (i >= 4) CHECK(to_seconds(s.end) == Approx(20).margin(1e-6));
  }
}

TEST_CASE("sessions files and trials are checked and merged into a trace", "[automl][errors]") {
  ScratchDir d;
  CHECK_THROWS_WITH(
      load_search_sessions(d.write("a.yaml", "sessions:\n  - {name: s, submit_s: 0, trails: 3}\n")),
      Catch::Contains("a.yaml:2: sessions.0.trails: unknown key"));
  CHECK_THROWS_WITH(
      load_search_sessions(
          d.write("b.yaml", "sessions:\n  - {name: s, submit_s: 0, rungs: [0.5, 0.2]}\n")),
      Catch::Contains(
          "sessions.0.rungs: expected increasing fractions in (0, 1), got 0.2 at position 2"));
  CHECK_THROWS_WITH(
      load_search_sessions(
          d.write("c.yaml", "sessions:\n  - {name: s, submit_s: 0}\n  - {name: s, submit_s: 1}\n")),
      Catch::Contains("duplicate session name 's'"));
  // Two trials of a resnet18 session submitted at 5 s go between the background jobs at 1 and 9 s;
  // the background gets an empty model field. Accuracy 0.8 < target: each is the full 100 s.
  auto sessions = load_search_sessions(
      d.write("ok.yaml", "sessions:\n  - {name: m, submit_s: 5, trials: 2, model: resnet18, "
                         "budget_s: 100, accuracy: {low: 0.8, high: 0.8}}\n"));
  std::ostringstream out;
  merge_trials_into_trace(
      "id,submit_s,workers,gpus_per_worker,duration_s,user\nj0,1,1,1,10,u0\nj1,9,1,1,10,u1\n",
      sessions, out);
  CHECK(out.str() ==
        "id,submit_s,workers,gpus_per_worker,duration_s,user,model\n"
        "j0,1,1,1,10,u0,\nm-t0,5,1,1,100,m,resnet18\nm-t1,5,1,1,100,m,resnet18\nj1,9,1,1,10,u1,\n");
  // automl needs its sessions file (read by the CLI) and a non-oracle scheduler.
  const PolicyEntry& e = find_policy("automl");
  auto make = [&](const std::string& yaml) {
    return e.make(make_policy_setup(e, Placement::kConsolidate, YAML::Load(yaml)));
  };
  CHECK_THROWS_WITH(make("{}"), Catch::Contains("policy.params.sessions: required"));
  CHECK_THROWS_WITH(make("{sessions: " + d.file("ok.yaml") + ", scheduler: sjf}"),
                    Catch::Contains("'sjf' is an oracle policy"));
  CHECK_THROWS_WITH(make("{sessions: nowhere.yaml}"),
                    Catch::Contains("nowhere.yaml: no such file"));
  // The policy parses its own sessions file (its text read by the CLI): errors name the file.
  CHECK_THROWS_WITH(make("{sessions: " + d.file("a.yaml") + "}"),
                    Catch::Contains("a.yaml:2: sessions.0.trails: unknown key"));
  CHECK_THROWS_WITH(make("{sessions: " + d.write("y.yaml", "sessions: [\n") + "}"),
                    Catch::Contains("y.yaml:2: YAML syntax error"));
  // Before the run, every trial must be a job of the trace: ok.yaml's m-t0 and m-t1.
  REQUIRE(e.check_jobs);
  auto setup = make_policy_setup(e, Placement::kConsolidate,
                                 YAML::Load("{sessions: " + d.file("ok.yaml") + "}"));
  JobNames both;
  both.push_back("j0");
  both.push_back("m-t0");
  both.push_back("m-t1");
  CHECK_NOTHROW(e.check_jobs(setup, both));
  JobNames one;
  one.push_back("m-t0");
  CHECK_THROWS_WITH(e.check_jobs(setup, one),
                    Catch::Contains("session 'm': trial job 'm-t1' is not in the trace"));
}

TEST_CASE("asynchronous halving judges each trial when it reaches the rung", "[automl]") {
  // The three equal trials under FIFO with rule: async. s-t0 reaches 30% at 30 s, alone at the
  // rung: kept (ceil(0.33 x 1) = 1), it finishes at 100. s-t1 reaches it at 130: 1 result ahead
  // of it (s-t0's, equal, recorded first), keep ceil(0.33 x 2) = 1: stopped at 130. s-t2 starts
  // at 130 and is stopped at 160 the same way (2 ahead, keep 1). The search is over at 160 s,
  // against 300 s with the synchronous rule.
  SearchRun r(kOneGpu,
              "sessions:\n  - {name: s, submit_s: 0, trials: 3, budget_s: 100, accuracy: {low: "
              "0.8, high: 0.8},\n"
              "     target: 0.9, rungs: [0.3], keep: 0.33, noise: 0, rule: async}\n",
              "fifo");
  CHECK(r.run->end("s-t0") == Approx(100));
  CHECK(r.run->job("s-t1").status == JobStatus::kCancelled);
  CHECK(r.run->end("s-t1") == Approx(130).margin(1e-6));
  CHECK(r.run->job("s-t2").status == JobStatus::kCancelled);
  CHECK(r.run->end("s-t2") == Approx(160).margin(1e-6));
}

namespace {

struct Cli {
  int code;
  std::string err;
};

// The dlsim binary, from the source tree (so bundled relative paths resolve).
Cli dlsim_cli(const std::string& args, const ScratchDir& dir) {
  std::string cmd = "cd '" DLSIM_SOURCE_DIR_FOR_TESTS "' && '" DLSIM_BINARY "' " + args +
                    " > /dev/null 2> '" + dir.file("err.txt") + "'";
  int status = std::system(cmd.c_str());
  return Cli{WEXITSTATUS(status), read_file(dir.file("err.txt"))};
}

} // namespace

TEST_CASE("gen-trace adds sessions and the automl experiment runs them end to end",
          "[automl][cli]") {
  // Two sessions of 6 one-GPU trials in 150 background jobs. Every trial ends finished or
  // cancelled, the truth file lists the 12 trials, and a bad sessions file is refused with its
  // file and key.
  ScratchDir dir;
  std::string sessions = dir.write(
      "s.yaml", "sessions:\n  - {name: a, submit_s: 3600, trials: 6, model: resnet18, budget_s: "
                "1800, seed: 4}\n"
                "  - {name: b, submit_s: 7200, trials: 6, budget_s: 1800, rule: async, seed: 5}\n");
  Cli gen =
      dlsim_cli("gen-trace -n 150 --seed 3 --arrival-rate 60 --sessions " + sessions +
                    " --sessions-truth " + dir.file("truth.csv") + " -o " + dir.file("trace.csv"),
                dir);
  REQUIRE(gen.code == 0);
  std::string truth = read_file(dir.file("truth.csv"));
  CHECK(std::count(truth.begin(), truth.end(), '\n') == 13); // header + 12 trials
  for (const char* scheduler : {"fifo", "tiresias", "gandiva"}) {
    Cli run = dlsim_cli("run -e configs/experiments/gandiva-automl.yaml --trace " +
                            dir.file("trace.csv") + " --set policy.params.sessions=" + sessions +
                            " --set policy.params.scheduler=" + scheduler + " -q -o " +
                            dir.file(std::string("res-") + scheduler),
                        dir);
    REQUIRE(run.code == 0);
    std::string jobs = read_file(dir.file(std::string("res-") + scheduler + "/jobs.csv"));
    std::istringstream lines(jobs);
    std::string line;
    int trials = 0;
    while (std::getline(lines, line)) {
      if (line.rfind("a-t", 0) != 0 && line.rfind("b-t", 0) != 0) continue;
      ++trials;
      bool ended = line.find(",finished") != std::string::npos ||
                   line.find(",cancelled") != std::string::npos;
      CHECK(ended);
    }
    CHECK(trials == 12);
  }
  std::string bad = dir.write("bad.yaml", "sessions:\n  - {name: a, submit_s: 0, keep: 2}\n");
  Cli refused = dlsim_cli("gen-trace -n 5 --sessions " + bad, dir);
  CHECK(refused.code == 1);
  CHECK_THAT(refused.err, Catch::Contains("bad.yaml:2: sessions.0.keep: must be in (0, 1]"));
}

TEST_CASE("session and model names must read back from the trace gen-trace writes",
          "[automl][errors]") {
  // A quote in a name made gen-trace --sessions write a trace that `dlsim validate` refused
  // ("expected 6 comma-separated fields"), and a leading space was trimmed by the reader, so the
  // automl policy would not find the trials (fuzz/fuzz_sessions.cpp checks the trace reads back).
  ScratchDir d;
  for (const char* name : {R"("a\"b")", R"("a\nb")", R"(" a")", R"("a\t")", R"("a,b")"}) {
    CHECK_THROWS_WITH(
        load_search_sessions(
            d.write("n.yaml", std::string("sessions:\n  - {name: ") + name + ", submit_s: 0}\n")),
        Catch::Contains("n.yaml:2: sessions.0.name: must be a non-empty name without commas, "
                        "double quotes, control characters or spaces at either end"));
  }
  CHECK_THROWS_WITH(load_search_sessions(d.write(
                        "m.yaml", "sessions:\n  - {name: a, submit_s: 0, model: \"x\\\"y\"}\n")),
                    Catch::Contains("m.yaml:2: sessions.0.model: must be a model name without"));
  // A budget the trace cannot hold: gen-trace wrote duration_s 3e+88, which `dlsim run` refused
  // (found by fuzz_sessions).
  CHECK_THROWS_WITH(
      load_search_sessions(
          d.write("b.yaml", "sessions:\n  - {name: a, submit_s: 0, budget_s: 3e88}\n")),
      Catch::Contains("b.yaml:2: sessions.0.budget_s: must be positive and at most 1e+09 s, got "
                      "3e+88"));
  // A name of letters beyond ASCII reads back whole: it stays allowed.
  auto ok = load_search_sessions(d.write("ok.yaml", "sessions:\n  - {name: ü-x, submit_s: 0}\n"));
  CHECK(ok.at(0).name == "ü-x");
}
