// fifo-backfill, shortest-gpu-time, tiresias, las and drf on tiny clusters, with every schedule
// worked out by hand in the comments; parameter errors; which policies read true durations.
#include "policies/registry.h"
#include "policies/tiresias.h"
#include "sim/cli/policy_setup.h"
#include "sim/engine/error.h"
#include "tests/support/harness.h"
#include "tests/support/invariants.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// Like run_policy, with policy parameters given as YAML text ("{oracle: true}").
SimState run_with(const std::string& name, const std::string& params, const Cluster& cluster,
                  const Workload& workload, const RuntimeConfig& config = {},
                  Placement placement = Placement::kConsolidate) {
  const PolicyEntry& entry = find_policy(name);
  PolicySetup setup{placement, resolve_params(entry, YAML::Load(params))};
  auto policy = entry.make(setup);
  Simulation sim(cluster, workload, config, *policy,
                 PolicyInfo{name, uses_oracle(entry, setup.params)});
  InvariantChecker checker;
  sim.add_observer(&checker);
  RunResult result = sim.run();
  checker.check_final(sim.state());
  REQUIRE(result.unfinished == 0);
  return sim.state();
}

RuntimeConfig free_preemption() {
  RuntimeConfig c;
  c.costs.suspend_s = 0;
  c.costs.resume_s = 0;
  return c;
}

struct Ends {
  const SimState& s;
  const Workload& w;
  double end(const std::string& job) const { return to_seconds(s.jobs[job_named(w, job)].end); }
  double start(const std::string& job) const {
    return to_seconds(s.jobs[job_named(w, job)].first_start);
  }
  std::uint32_t preemptions(const std::string& job) const {
    return s.jobs[job_named(w, job)].preemptions;
  }
};

constexpr const char* kOneNode4 = "nodes:\n  - {count: 1, devices: {V100: 4}}\n";

} // namespace

// ---- fifo-backfill ------------------------------------------------------------------------

// A holds 2 of 4 GPUs 0-100. B (4 GPUs) is the head from 10: it can start when A ends, so its
// shadow time is 100. C (1 GPU, 10 s) fits now and ends at 30 <= 100: it backfills. D (1 GPU,
// 200 s) fits now but would end at 220 > 100 while holding 1 of the 4 GPUs B needs at 100: it
// waits. B runs 100-150 as under FIFO (not delayed), then D 150-350.
constexpr const char* kBackfill = "id,submit_s,workers,gpus_per_worker,duration_s,requested_s\n"
                                  "A,0,1,2,100,100\n"
                                  "B,10,1,4,50,50\n"
                                  "C,20,1,1,10,10\n"
                                  "D,20,1,1,200,200\n";

TEST_CASE("fifo-backfill starts a small job early without delaying the head",
          "[policy][backfill]") {
  Cluster c = cluster_from_yaml(kOneNode4);
  Workload w = workload_from_csv(c, kBackfill);
  SimState s = run_with("fifo-backfill", "", c, w);
  Ends e{s, w};
  CHECK(e.start("C") == 20);
  CHECK(e.end("C") == 30);
  CHECK(e.start("B") == 100); // FIFO would also start B at 100: the head is not delayed
  CHECK(e.end("B") == 150);
  CHECK(e.start("D") == 150);
  CHECK(e.end("D") == 350);

  // Under plain FIFO, C waits behind B: 150-160, and D 160-360.
  SimState f = run_with("fifo", "", c, w);
  CHECK(Ends{f, w}.end("C") == 160);
}

TEST_CASE("fifo-backfill with oracle: true estimates from the true durations",
          "[policy][backfill]") {
  Cluster c = cluster_from_yaml(kOneNode4);
  // Same jobs without requested times: the oracle knows A ends at 100 and C lasts 10 s.
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                    "A,0,1,2,100\nB,10,1,4,50\nC,20,1,1,10\nD,20,1,1,200\n");
  SimState s = run_with("fifo-backfill", "{oracle: true}", c, w);
  Ends e{s, w};
  CHECK(e.end("C") == 30);
  CHECK(e.start("B") == 100);
  CHECK(e.start("D") == 150);

  // Without estimates and without the oracle, A's end is unknown, so B gets no reservation and
  // every job that fits starts: C 20-30 and D 20-220. B waits for A and D: 220-270.
  SimState n = run_with("fifo-backfill", "", c, w);
  Ends u{n, w};
  CHECK(u.start("D") == 20);
  CHECK(u.start("B") == 220);
  CHECK(u.end("B") == 270);
}

TEST_CASE("fifo-backfill lets a long job use devices the head will not need",
          "[policy][backfill]") {
  Cluster c = cluster_from_yaml(kOneNode4);
  // A holds 2 GPUs 0-100. Head B needs 3: at its shadow time 100 four are free, one spare.
  // C (1 GPU, ends at 520 > 100) takes that spare one: at 100, 4 - 1 = 3 are free for B. D
  // (1 GPU, long) would leave 4 - 1 - 1 = 2 < 3 at 100: it waits. B runs 100-150 on A's 2 GPUs
  // and the last free one; D starts when B ends, 150-650.
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s,requested_s\n"
                                    "A,0,1,2,100,100\nB,10,1,3,50,50\nC,20,1,1,500,500\n"
                                    "D,30,1,1,500,500\n");
  SimState s = run_with("fifo-backfill", "", c, w);
  Ends e{s, w};
  CHECK(e.start("C") == 20);
  CHECK(e.start("B") == 100);
  CHECK(e.start("D") == 150);
  CHECK(e.end("D") == 650);
}

// ---- shortest-gpu-time --------------------------------------------------------------------

TEST_CASE("shortest-gpu-time orders by duration x GPUs, not duration", "[policy][sgt]") {
  Cluster c = cluster_from_yaml(kOneNode4);
  // A takes all 4 GPUs 0-100. X: 4 GPUs x 30 s = 120 GPU-s; Y: 1 GPU x 100 s = 100 GPU-s.
  // Y is smaller: it starts at 100 and ends at 200; X (4 GPUs) must wait for Y (strict order):
  // 200-230. SJF, by duration, runs X first: X 100-130, Y 130-230.
  Workload w =
      workload_from_csv(c, "id,submit_s,workers,duration_s\nA,0,4,100\nX,10,4,30\nY,10,1,100\n");
  SimState s = run_with("shortest-gpu-time", "", c, w);
  Ends e{s, w};
  CHECK(e.end("Y") == 200);
  CHECK(e.end("X") == 230);
  SimState sjf = run_with("sjf", "", c, w);
  CHECK(Ends{sjf, w}.end("X") == 130);
  CHECK(Ends{sjf, w}.end("Y") == 230);
}

TEST_CASE("shortest-gpu-time preemptive (SRSF) suspends the job with more remaining GPU time",
          "[policy][sgt]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  // A: 2 GPUs x 100 s from 0. B: 1 GPU x 150 s at 50: A has 50 s x 2 = 100 GPU-s left < 150, and
  // B does not fit beside it: B waits. C: 1 GPU x 20 s at 60: order C (20), A (40 s x 2 = 80),
  // B (150). C takes 1 GPU, A (2) no longer fits and is suspended, B takes the other GPU.
  // At 80 C ends: A (80) < B (130 left x 1): A takes both GPUs back, B is suspended. A ends at
  // 80 + 40 = 120; B resumes with 130 s left: 120-250. Costs are 0 here.
  Workload w =
      workload_from_csv(c, "id,submit_s,workers,duration_s\nA,0,2,100\nB,50,1,150\nC,60,1,20\n");
  SimState s = run_with("shortest-gpu-time", "{preemptive: true}", c, w, free_preemption());
  Ends e{s, w};
  CHECK(e.end("C") == 80);
  CHECK(e.end("A") == 120);
  CHECK(e.end("B") == 250);
  CHECK(e.preemptions("A") == 1);
  CHECK(e.preemptions("B") == 1);
}

// ---- tiresias -----------------------------------------------------------------------------

TEST_CASE("tiresias demotes a job at its threshold and preempts it for a new arrival",
          "[policy][tiresias]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  // A: 2 GPUs x 200 s from 0. B: 1 GPU x 30 s at 40. Threshold 100 GPU-seconds.
  // At 40 A has 2 x 40 = 80 GPU-s: both in Q0, A holds the GPUs and keeps them; B waits.
  // At 50 A reaches 2 x 50 = 100 and moves to Q1 (a wake-up the policy asked for: no event
  // happens then). B, in Q0, now goes first: A is suspended (checkpoint 50-55, GPUs held), B
  // starts at 55 and ends at 85. A resumes (restore 85-90) with 200 - 50 = 150 s left: ends 240.
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\nA,0,2,200\nB,40,1,30\n");
  RuntimeConfig cfg;
  cfg.costs.suspend_s = 5;
  cfg.costs.resume_s = 5;
  SimState s = run_with("tiresias", "{thresholds: [100]}", c, w, cfg);
  Ends e{s, w};
  CHECK(e.start("B") == 55);
  CHECK(e.end("B") == 85);
  CHECK(e.end("A") == 240);
  CHECK(e.preemptions("A") == 1);
  CHECK(to_seconds(s.jobs[job_named(w, "A")].run_time) == 200);

  // With the default threshold (3,600 GPU-s) A never leaves Q0 before it ends at 200, and a
  // job of its own queue does not preempt it: B runs 200-230.
  SimState d = run_with("tiresias", "", c, w, cfg);
  CHECK(Ends{d, w}.end("A") == 200);
  CHECK(Ends{d, w}.start("B") == 200);
  CHECK(Ends{d, w}.preemptions("A") == 0);
}

TEST_CASE("tiresias' starvation guard promotes a job that waited too long", "[policy][tiresias]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  // One GPU, threshold 100 GPU-s, free preemption. A: 300 s from 0; B: 500 s at 150.
  // A is demoted at 100. At 150 B (Q0) preempts A (Q1). B is demoted at 250 (100 s run) and,
  // holding the GPU, stays ahead of A in Q1.
  // Without the guard B runs to 650, then A runs its last 150 s: A ends at 800.
  // With promote_knob 1: A has run 150 s since it entered Q0, and has waited since 150; at
  // 300 it has waited 150 >= 1 x 150 and goes back to Q0, preempting B. Its service counts
  // from 0 again: demoted at 400, but then it holds the GPU, ahead of B in Q1, and ends at
  // 300 + 150 = 450. B (run 150 s, waited 300-450 = 150) is promoted at 450 and ends at 450 +
  // 350 = 800.
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\nA,0,1,300\nB,150,1,500\n");
  SimState off = run_with("tiresias", "{thresholds: [100]}", c, w, free_preemption());
  CHECK(Ends{off, w}.end("B") == 650);
  CHECK(Ends{off, w}.end("A") == 800);
  SimState on =
      run_with("tiresias", "{thresholds: [100], promote_knob: 1}", c, w, free_preemption());
  Ends e{on, w};
  CHECK(e.end("A") == 450);
  CHECK(e.end("B") == 800);
  CHECK(e.preemptions("A") == 1);
  CHECK(e.preemptions("B") == 1);
}

TEST_CASE("tiresias with three queues demotes twice", "[policy][tiresias]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  // One GPU, thresholds 50 and 150 GPU-s, free preemption. A: 300 s from 0; D: 200 s at 10.
  // At 10 both are in Q0 and A holds the GPU: D waits. At 50 A moves to Q1 and D (Q0)
  // preempts it. D reaches 50 GPU-s at 100 and moves to Q1, where it holds the GPU, ahead of A.
  // At 200 D has 150 GPU-s and moves to Q2: A (Q1) now goes first and resumes with 250 s left.
  // A reaches Q2 at 300 (50 + 100) but holds the GPU there: it ends at 200 + 250 = 450. D
  // resumes with 50 s left: ends 500.
  // With two queues ([50]) D stays in Q1, holding the GPU, to its end at 50 + 200 = 250; A
  // resumes with 250 s left and ends at 500.
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\nA,0,1,300\nD,10,1,200\n");
  SimState three = run_with("tiresias", "{thresholds: [50, 150]}", c, w, free_preemption());
  Ends e{three, w};
  CHECK(e.end("A") == 450);
  CHECK(e.end("D") == 500);
  CHECK(e.preemptions("A") == 1);
  CHECK(e.preemptions("D") == 1);
  SimState two = run_with("tiresias", "{thresholds: [50]}", c, w, free_preemption());
  CHECK(Ends{two, w}.end("D") == 250);
  CHECK(Ends{two, w}.end("A") == 500);
}

TEST_CASE("tiresias does not preempt for a job whose workers cannot be placed",
          "[policy][tiresias]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 2, devices: {V100: 2}}\n");
  // Two nodes of 2 GPUs, spread placement, threshold 100 GPU-s, free preemption. A, B and C
  // (1 GPU, 1000 s) arrive at 0: spread puts A on node 0, B on node 1, C on node 0. All three
  // reach 100 GPU-s at 100 and move to Q1, in the order A, B, C. W (one worker of 2 GPUs, 50 s)
  // arrives at 150 in Q0 and needs a whole node.
  // Counting devices alone, W (2), A and B (1 + 1) fill the 4 GPUs and C, the worst, would be
  // suspended; but C's GPU and node 1's free one are on different nodes, and W still could not
  // start. The placement check leaves W out: nobody is preempted, and W starts when node 0
  // empties at 1000 (A and C end), running 1000-1050.
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                    "A,0,1,1,1000\nB,0,1,1,1000\nC,0,1,1,1000\nW,150,1,2,50\n");
  SimState s =
      run_with("tiresias", "{thresholds: [100]}", c, w, free_preemption(), Placement::kSpread);
  Ends e{s, w};
  CHECK(e.preemptions("A") == 0);
  CHECK(e.preemptions("B") == 0);
  CHECK(e.preemptions("C") == 0);
  CHECK(e.start("W") == 1000);
  CHECK(e.end("W") == 1050);
}

TEST_CASE("tiresias queue_order: running-first puts a demoted job behind its new queue",
          "[policy][tiresias]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  // Two GPUs, threshold 100 GPU-s, free preemption. A: 2 GPUs x 300 s from 0; B: 1 GPU x 300 s
  // at 10. A holds both GPUs in Q0 until 2 x 50 = 100 GPU-s at 50, when it moves to Q1 and B
  // (Q0) preempts it. B reaches 100 GPU-s at 150 and moves to Q1, where A has waited since 50.
  // entry (default): B holds its GPU, so it stays ahead of A in Q1 and runs to 50 + 300 = 350;
  // A resumes with 250 s left and ends at 600.
  // running-first (the Tiresias simulator): B joins Q1 behind A; A takes both GPUs at 150 and
  // ends at 150 + 250 = 400; B resumes with 200 s left and ends at 600.
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\nA,0,2,300\nB,10,1,300\n");
  SimState entry = run_with("tiresias", "{thresholds: [100]}", c, w, free_preemption());
  CHECK(Ends{entry, w}.end("B") == 350);
  CHECK(Ends{entry, w}.end("A") == 600);
  SimState rf = run_with("tiresias", "{thresholds: [100], queue_order: running-first}", c, w,
                         free_preemption());
  CHECK(Ends{rf, w}.end("A") == 400);
  CHECK(Ends{rf, w}.end("B") == 600);
  CHECK(Ends{rf, w}.preemptions("B") == 1);
}

// ---- las ----------------------------------------------------------------------------------

TEST_CASE("las gives the GPU to the job with the least attained service", "[policy][las]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  // One GPU, free preemption, rounds of 50 s. A: 100 s from 0; B: 100 s at 10.
  // 0-10 A. At 10 B arrives: an arrival only fills free devices, and there are none; B waits,
  // and the first round is set for 10 + 50 = 60. At 60 A has 60 GPU-s, B 0: B preempts A and
  // runs. At 110 B has 50 < A's 60: B keeps the GPU. B is done at 160 (60-160), and A resumes
  // with 40 s left: ends 200.
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\nA,0,1,100\nB,10,1,100\n");
  SimState s = run_with("las", "{interval_s: 50}", c, w, free_preemption());
  Ends e{s, w};
  CHECK(e.start("B") == 60);
  CHECK(e.end("B") == 160);
  CHECK(e.end("A") == 200);
  CHECK(e.preemptions("A") == 1);
  CHECK(e.preemptions("B") == 0);

  // interval_s 0 compares at every event: B preempts A as soon as it arrives (10 > 0 GPU-s).
  // B then runs 10-110 (no event comes before its end to compare again), and A 110-200.
  SimState z = run_with("las", "{interval_s: 0}", c, w, free_preemption());
  CHECK(Ends{z, w}.end("B") == 110);
  CHECK(Ends{z, w}.end("A") == 200);
}

TEST_CASE("las counts service in GPU-seconds (two-dimensional)", "[policy][las]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  // Two GPUs, free preemption, rounds of 10 s. A: 2 GPUs x 30 s, B: 1 GPU x 50 s, both at 0.
  // At 0 both have 0 GPU-s; A is first by submission order and takes both GPUs. Every decision
  // below is at a round.
  // At 10 A has 2 x 10 = 20 GPU-s, B 0: B takes a GPU; A no longer fits and is suspended
  // (the second GPU idles: nothing else waits). At 20 B has 10 < 20: it keeps running. At 30
  // B has 20 = A's 20: a tie goes to the job holding devices. At 40 B (30) > A (20): A resumes
  // on both GPUs, B is suspended. At 50 A has 40 > B's 30: B runs again. At 60 B has 40 = A's
  // 40: B holds. B has then run 10-40 and 50-70: it ends at 70 with its 50 s. A resumes with
  // 30 - 20 = 10 s left: ends 80.
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\nA,0,2,30\nB,0,1,50\n");
  SimState s = run_with("las", "{interval_s: 10}", c, w, free_preemption());
  Ends e{s, w};
  CHECK(e.end("B") == 70);
  CHECK(e.end("A") == 80);
  CHECK(e.preemptions("A") == 2);
  CHECK(e.preemptions("B") == 1);
}

// ---- drf ----------------------------------------------------------------------------------

TEST_CASE("drf equalizes dominant shares between two users (Ghodsi et al.'s example)",
          "[policy][drf]") {
  // The example of the DRF paper (NSDI'11, section 4): 9 CPUs and 18 GB; user a's tasks need
  // <1 CPU, 4 GB>, user b's <3 CPUs, 1 GB>. Here each task also takes one of 16 GPUs, which
  // never binds (at most 5 of 16 are used).
  Cluster c = cluster_from_yaml(
      "nodes:\n  - {count: 1, devices: {V100: 16}, cpu_cores: 9, memory_gb: 18}\n");
  Workload w =
      workload_from_csv(c, "id,submit_s,workers,duration_s,cpus_per_worker,mem_gb_per_worker,user\n"
                           "a1,0,1,100,1,4,a\na2,0,1,100,1,4,a\na3,0,1,100,1,4,a\n"
                           "a4,0,1,100,1,4,a\na5,0,1,100,1,4,a\n"
                           "b1,0,1,100,3,1,b\nb2,0,1,100,3,1,b\nb3,0,1,100,3,1,b\n"
                           "b4,0,1,100,3,1,b\nb5,0,1,100,3,1,b\n");
  // Progressive filling at 0 (dominant shares; ties to a, the first user):
  //   a 0    -> a1: a's memory share 4/18 = 0.22 is its dominant share
  //   b 0    -> b1: b's CPU share 3/9 = 0.33
  //   a 0.22 -> a2: 8/18 = 0.44            (CPUs used 1 + 3 + 1 = 5)
  //   b 0.33 -> b2: 6/9 = 0.67             (CPUs used 8)
  //   a 0.44 -> a3: 12/18 = 0.67           (CPUs used 9: full)
  //   a4 and b3 do not fit. a runs 3 jobs, b 2: both dominant shares are 2/3, as in the paper.
  // At 100 all five end and filling restarts from zero: a4, b3, a5, b4 (CPUs 1+3+1+3 = 8); b5
  // needs 3 of the 1 left: it starts at 200.
  SimState s = run_with("drf", "", c, w);
  Ends e{s, w};
  for (const char* j : {"a1", "a2", "a3", "b1", "b2"})
    CHECK(e.start(j) == 0);
  for (const char* j : {"a4", "a5", "b3", "b4"})
    CHECK(e.start(j) == 100);
  CHECK(e.start("b5") == 200);

  // FIFO instead runs a1-a4 at 0 (4 CPUs, 16 GB) and blocks at a5 (20 GB > 18): b gets nothing.
  SimState f = run_with("fifo", "", c, w);
  CHECK(Ends{f, w}.start("a4") == 0);
  CHECK(Ends{f, w}.start("b1") == 100);
}

TEST_CASE("drf group_by: queue shares between queues instead of users", "[policy][drf]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  // Two queues, one user. By user, DRF is FIFO with skipping: x1 and x2 take both GPUs at 0.
  // By queue, x1 (queue p) then y1 (queue q, share 0 < p's 1/2) start at 0; x2 waits to 100.
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,queue\n"
                                    "x1,0,1,100,p\nx2,0,1,100,p\ny1,0,1,100,q\n");
  SimState by_user = run_with("drf", "", c, w);
  CHECK(Ends{by_user, w}.start("x2") == 0);
  CHECK(Ends{by_user, w}.start("y1") == 100);
  SimState by_queue = run_with("drf", "{group_by: queue}", c, w);
  CHECK(Ends{by_queue, w}.start("y1") == 0);
  CHECK(Ends{by_queue, w}.start("x2") == 100);
}

// ---- parameters ---------------------------------------------------------------------------

TEST_CASE("a policy reads true durations only when its parameters say so", "[policy][oracle]") {
  auto uses = [](const std::string& name, const std::string& params) {
    const PolicyEntry& e = find_policy(name);
    return uses_oracle(e, resolve_params(e, YAML::Load(params)));
  };
  // fifo-backfill declares `oracle` (default false): an oracle only with oracle: true.
  CHECK_FALSE(uses("fifo-backfill", ""));
  CHECK_FALSE(uses("fifo-backfill", "{oracle: false}"));
  CHECK(uses("fifo-backfill", "{oracle: true}"));
  // The others are oracles or not whatever their parameters.
  CHECK(uses("srtf", ""));
  CHECK(uses("sjf", ""));
  CHECK(uses("shortest-gpu-time", "{preemptive: true}"));
  CHECK_FALSE(uses("fifo", ""));
  CHECK_FALSE(uses("tiresias", ""));
  CHECK(oracle_tag(find_policy("fifo-backfill")) == "[oracle with oracle: true]");
  CHECK(oracle_tag(find_policy("srtf")) == "[oracle]");
  CHECK(oracle_tag(find_policy("fifo")).empty());

  // The runtime grants what uses_oracle says: fifo-backfill with its default runs with a view
  // that refuses true durations, and asking for them anyway is an error.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\nA,0,1,10\n");
  ScriptPolicy peek({{0, [](Control& ctl) { (void)ctl.oracle_remaining_s(0); }}});
  Simulation sim(
      c, w, RuntimeConfig{}, peek,
      PolicyInfo{"fifo-backfill", uses_oracle(find_policy("fifo-backfill"),
                                              resolve_params(find_policy("fifo-backfill"), {}))});
  CHECK_THROWS_AS(sim.run(), ActionError);

  // automl refuses an oracle scheduler, judged by its scheduler_params.
  const PolicyEntry& automl = find_policy("automl");
  auto make = [&](const std::string& yaml) {
    return automl.make(make_policy_setup(automl, Placement::kConsolidate, YAML::Load(yaml)));
  };
  CHECK_THROWS_WITH(make("{sessions: configs/experiments/gandiva-automl-sessions.yaml, "
                         "scheduler: fifo-backfill, scheduler_params: {oracle: true}}"),
                    Catch::Contains("'fifo-backfill' is an oracle policy"));
  // The sessions file is read before the policy is made (sim/cli/policy_setup.cpp).
  CHECK_THROWS_WITH(make("{sessions: nowhere.yaml, scheduler: fifo-backfill}"),
                    Catch::Contains("nowhere.yaml: no such file"));
}

TEST_CASE("dlsim list policies lines up the descriptions and marks oracles by their parameters",
          "[policy][oracle][cli]") {
  ScratchDir dir;
  std::string out = dir.file("out.txt");
  std::string cmd = "'" DLSIM_BINARY "' list policies > '" + out + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string text = read_file(out);
  // Every description starts one space after the longest name, padded to its width.
  std::size_t width = 0;
  for (const auto& p : policy_registry())
    width = std::max(width, p.name.size());
  std::map<std::string, std::string> line_of;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == ' ') continue;
    line_of[line.substr(0, line.find(' '))] = line;
  }
  for (const auto& p : policy_registry()) {
    INFO(p.name);
    REQUIRE(line_of.count(p.name));
    const std::string& line = line_of[p.name];
    REQUIRE(line.size() > width + 1);
    CHECK(line.substr(0, width + 1) == p.name + std::string(width + 1 - p.name.size(), ' '));
    CHECK(line.substr(width + 1, p.description.size()) == p.description);
  }
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  CHECK(ends_with(line_of["fifo-backfill"], " [oracle with oracle: true] [failures]"));
  CHECK(ends_with(line_of["srtf"], " [oracle]"));
  CHECK(ends_with(line_of["shortest-gpu-time"], " [oracle]"));
  CHECK(line_of["fifo"].find("[oracle") == std::string::npos);
  CHECK(line_of["tiresias"].find("[oracle") == std::string::npos);
}

TEST_CASE("bad policy parameters name the key", "[policy][params]") {
  auto make = [](const std::string& name, const std::string& params) {
    const PolicyEntry& e = find_policy(name);
    return e.make(PolicySetup{Placement::kConsolidate, resolve_params(e, YAML::Load(params))});
  };
  CHECK_THROWS_WITH(make("tiresias", "{thresholds: [3600, 100]}"),
                    Catch::Contains("policy.params.thresholds") && Catch::Contains("increasing"));
  CHECK_THROWS_WITH(make("tiresias", "{thresholds: [0]}"),
                    Catch::Contains("policy.params.thresholds"));
  CHECK_THROWS_WITH(make("tiresias", "{thresholds: {a: 1}}"), Catch::Contains("list of numbers"));
  CHECK_THROWS_WITH(make("tiresias", "{promote_knob: -1}"),
                    Catch::Contains("policy.params.promote_knob"));
  CHECK_THROWS_WITH(make("las", "{interval_s: -5}"), Catch::Contains("policy.params.interval_s"));
  CHECK_THROWS_WITH(make("drf", "{group_by: team}"), Catch::Contains("policy.params.group_by"));
  CHECK_THROWS_WITH(make("fifo-backfill", "{oracle: maybe}"),
                    Catch::Contains("policy.params.oracle"));
  CHECK_THROWS_WITH(make("tiresias", "{queues: 3}"), Catch::Contains("no such parameter"));
  // Defaults: 2 queues split at 3,600 GPU-s (Tiresias, NSDI'19), no starvation guard.
  TiresiasOptions d = tiresias_options(resolve_params(find_policy("tiresias"), YAML::Node()));
  CHECK(d.thresholds == std::vector<double>{3600});
  CHECK(d.promote_knob == 0);
  CHECK_FALSE(d.running_first);
  CHECK_THROWS_WITH(make("tiresias", "{queue_order: lifo}"),
                    Catch::Contains("policy.params.queue_order"));
}

TEST_CASE("a parameter's declared range is checked where it is declared and listed with it",
          "[policy][params]") {
  auto error = [](const std::string& name, const std::string& params) -> std::string {
    try {
      resolve_params(find_policy(name), YAML::Load(params));
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error("util-reactive", "{max_tasks: 9}") ==
        "policy.params.max_tasks: expected a whole number from 1 to 8, got 9");
  CHECK(error("util-reactive", "{max_tasks: 2.5}") ==
        "policy.params.max_tasks: expected a whole number from 1 to 8, got 2.5");
  CHECK(error("util-reactive", "{mem_margin_gb: -0.5}") ==
        "policy.params.mem_margin_gb: expected a number >= 0, got -0.5");
  CHECK(error("max-throughput", "{window: 0}") ==
        "policy.params.window: expected a whole number from 1 to 1000000, got 0");
  // A negative duration is refused by the seconds type itself, before its range.
  CHECK(error("k8s-default", "{pod_interval_s: -1}") ==
        "policy.params.pod_interval_s: expected a duration of 0 s or more for policy "
        "'k8s-default', got '-1'");
  CHECK(error("drf", "{group_by: team}") ==
        "policy.params.group_by: expected one of: user, queue, got 'team'");
  CHECK(error("tiresias", "{promote_knob: .nan}") ==
        "policy.params.promote_knob: expected a number >= 0, got nan");
  // An increasing list names the place of the first number not above the one before it.
  CHECK(error("tiresias", "{thresholds: [3600, 3600]}") ==
        "policy.params.thresholds: expected increasing numbers > 0, got 3600 at position 2");
  CHECK(error("aiturbo", "{thresholds: [100, 50]}") ==
        "policy.params.thresholds: expected increasing numbers > 0, got 50 at position 2");
  CHECK(error("aiturbo", "{thresholds: [-1]}") ==
        "policy.params.thresholds: expected increasing numbers > 0, got -1 at position 1");
  CHECK(error("tiresias", "{thresholds: []}") == "no error");
  // Open and closed bounds, as the policies' factories checked them before.
  CHECK(error("gandiva", "{slice_s: 0}") == "policy.params.slice_s: expected seconds > 0, got 0");
  CHECK(error("gavel-throughput", "{round_s: 0}") ==
        "policy.params.round_s: expected seconds > 0, got 0");
  CHECK(error("elastic-kubeflow", "{idle_s: 0}") ==
        "policy.params.idle_s: expected seconds > 0, got 0");
  CHECK(error("optimus", "{interval_s: 0}") ==
        "policy.params.interval_s: expected seconds > 0, got 0");
  CHECK(error("aiturbo", "{min_samples: 2}") ==
        "policy.params.min_samples: expected a number from 3 to 1000000, got 2");
  CHECK(error("aiturbo", "{stability: 0}") ==
        "policy.params.stability: expected a number in (0, 1], got 0");
  CHECK(error("aiturbo", "{stability: 1.5}") ==
        "policy.params.stability: expected a number in (0, 1], got 1.5");
  CHECK(error("external", "{timeout_s: 86401}") ==
        "policy.params.timeout_s: expected seconds in (0, 86400], got 86401");
  // The bounds themselves are accepted.
  CHECK(error("util-reactive", "{max_tasks: 8, lookahead: 1, mem_margin_gb: 0}") == "no error");
  CHECK(error("aiturbo", "{min_samples: 3, stability: 1, min_gain_s: 0}") == "no error");
  CHECK(error("gavel-throughput", "{reset_s: 0}") == "no error");
  const PolicyEntry& util = find_policy("util-reactive");
  CHECK(describe_range(util.params[2]) == "a whole number from 1 to 8");
  CHECK(describe_range(find_policy("drf").params[0]) == "one of: user, queue");
  CHECK(describe_range(find_policy("tiresias").params[0]) == "increasing numbers > 0");
  ParamSpec steps{
      "steps", ParamType::kNumbers, "[1]", "", {.min = 1, .whole = true, .increasing = true}};
  CHECK(describe_range(steps) == "increasing whole numbers >= 1");
}
