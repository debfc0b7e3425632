// FIFO, SJF and SRTF on tiny clusters, with the schedule worked out by hand; placement.
#include "policies/placement.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace {

constexpr const char* kFourGpus = "nodes:\n  - {count: 1, devices: {V100: 4}}\n";
// A: 2 GPUs for 100 s at 0; B: 4 GPUs for 50 s at 10; C: 1 GPU for 10 s at 20.
constexpr const char* kHeadOfLine = "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                    "A,0,1,2,100\n"
                                    "B,10,1,4,50\n"
                                    "C,20,1,1,10\n";

double end_s(const RunOutput& out, const Workload& w, const std::string& name) {
  return to_seconds(out.state.jobs[job_named(w, name)].end);
}

} // namespace

TEST_CASE("FIFO blocks small jobs behind a big one (head-of-line blocking)", "[policy][fifo]") {
  Cluster c = cluster_from_yaml(kFourGpus);
  Workload w = workload_from_csv(c, kHeadOfLine);
  RunOutput out = run_policy("fifo", c, w);
  // A runs 0-100. B (4 GPUs) waits for A. C would fit beside A at 20 but must wait behind B:
  // B runs 100-150, C 150-160.
  CHECK(end_s(out, w, "A") == 100);
  CHECK(end_s(out, w, "B") == 150);
  CHECK(end_s(out, w, "C") == 160);
  // JCTs 100, 140, 140. GPU-seconds 2x100 + 4x50 + 1x10 = 410 of 4 GPUs x 160 s = 640.
  CHECK(out.gpu_util_alloc == Approx(410.0 / 640.0));
}

TEST_CASE("SJF starts the shortest waiting job first", "[policy][sjf]") {
  Cluster c = cluster_from_yaml(kFourGpus);
  Workload w = workload_from_csv(c, kHeadOfLine);
  RunOutput out = run_policy("sjf", c, w);
  // At 20 the waiting jobs are B (50 s) and C (10 s): C is shorter and fits beside A, so it
  // runs 20-30. B still waits for A: 100-150.
  CHECK(end_s(out, w, "A") == 100);
  CHECK(end_s(out, w, "C") == 30);
  CHECK(end_s(out, w, "B") == 150);
}

TEST_CASE("SJF is strict: a short job that does not fit blocks longer ones", "[policy][sjf]") {
  Cluster c = cluster_from_yaml(kFourGpus);
  // A holds 2 GPUs 0-100. At 10, S (4 GPUs, 20 s) and L (1 GPU, 30 s) wait; S is shorter but
  // does not fit, so L waits too: S runs 100-120, L 120-150.
  Workload w = workload_from_csv(
      c, "id,submit_s,workers,gpus_per_worker,duration_s\nA,0,1,2,100\nS,10,1,4,20\nL,10,1,1,30\n");
  RunOutput out = run_policy("sjf", c, w);
  CHECK(end_s(out, w, "S") == 120);
  CHECK(end_s(out, w, "L") == 150);
}

TEST_CASE("SRTF preempts a longer job for a shorter one, paying suspend and resume",
          "[policy][srtf]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\nA,0,1,100\nB,20,1,30\n");
  RuntimeConfig cfg;
  cfg.costs.suspend_s = 5;
  cfg.costs.resume_s = 5;
  RunOutput out = run_policy("srtf", c, w, cfg);
  // At 20 A has 80 s left, B 30 s: A is suspended (20-25, device held, progress 20 s kept).
  // B starts at 25 (first start costs 0) and ends at 55. A resumes 55-60 and runs its last
  // 80 s: ends at 140. JCTs: A 140, B 35; B queued 5 s.
  const JobState& a = out.state.jobs[job_named(w, "A")];
  const JobState& b = out.state.jobs[job_named(w, "B")];
  CHECK(to_seconds(b.first_start) == 25);
  CHECK(to_seconds(b.end) == 55);
  CHECK(to_seconds(a.end) == 140);
  CHECK(a.preemptions == 1);
  CHECK(b.preemptions == 0);
  CHECK(to_seconds(a.run_time) == 100);
}

TEST_CASE("SRTF does not preempt for a job that is longer than what runs", "[policy][srtf]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\nA,0,1,100\nB,20,1,90\n");
  RunOutput out = run_policy("srtf", c, w);
  // At 20 A has 80 s left < B's 90: A keeps running to 100, B runs 100-190.
  CHECK(end_s(out, w, "A") == 100);
  CHECK(end_s(out, w, "B") == 190);
  CHECK(out.state.jobs[job_named(w, "A")].preemptions == 0);
}

TEST_CASE("SRTF on two nodes does not preempt for a job that could not be placed",
          "[policy][srtf]") {
  // Two nodes of 4 GPUs, default costs (start 0, suspend 5, resume 5), consolidated placement. R (3
  // GPUs, 1000 s) at 0 -> node 0, GPUs 0-2. B (1 GPU, 500 s) at 1 -> node 0's last GPU (best fit).
  // A (1 GPU, 100 s) at 2 -> node 1, GPU 4. Z (one worker of 4 GPUs, 300 s) at 3 needs a whole
  // node. At 3 the remaining times are A 99, Z 300, B 498, R 997. Capacity (8 GPUs), best first: A
  // 1, Z 4, B 1, leaving 2 < R's 3. But with R's GPUs released node 0 has 3 free and node 1 has 3:
  // Z still cannot be placed, so it is left out and R keeps running (the shared PriorityPass).
  // The first srtf counted devices only: it suspended R at 3 (3-8) for nothing and resumed it at
  // 102 (102-107), when A's end freed node 1 for Z: R lost 104 s and ended at 1104.
  // At 102 A ends: Z (300), B (399), R (898) use 4 + 1 + 3 = 8 and Z fits node 1: Z runs
  // 102-402. B ends at 501, R at 1000, never preempted.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 2, devices: {V100: 4}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                    "R,0,1,3,1000\nB,1,1,1,500\nA,2,1,1,100\nZ,3,1,4,300\n");
  RunOutput out = run_policy("srtf", c, w);
  const JobState& r = out.state.jobs[job_named(w, "R")];
  CHECK(r.preemptions == 0);
  CHECK(end_s(out, w, "R") == 1000);
  CHECK(to_seconds(out.state.jobs[job_named(w, "Z")].first_start) == 102);
  CHECK(end_s(out, w, "Z") == 402);
  CHECK(end_s(out, w, "B") == 501);
  CHECK(end_s(out, w, "A") == 102);
  for (const JobState& j : out.state.jobs)
    CHECK(j.preemptions == 0);
}

TEST_CASE("consolidate uses the fewest nodes, spread one worker per node", "[policy][placement]") {
  Cluster c = cluster_from_yaml(
      "fabric: {nodes_per_rack: 2}\nnodes:\n  - {count: 4, devices: {V100: 4}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\nfour,0,4,10\none,0,1,10\n");
  RunOutput packed = run_policy("fifo", c, w, {}, "consolidate");
  RunOutput spread = run_policy("fifo", c, w, {}, "spread");
  JobId four = job_named(w, "four");
  CHECK(packed.state.jobs[four].nodes_used == 1);
  CHECK(spread.state.jobs[four].nodes_used == 4);
}

TEST_CASE("first-fit takes the first node in id order, not the best fit", "[policy][placement]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 2, devices: {V100: 4}}\n");
  // a (2 GPUs) lands on node 0 under both; c (3 GPUs) cannot use node 0's 2 free: node 1. d (1
  // GPU) then sees node 0 with 2 free and node 1 with 1: best fit takes node 1, first fit node 0.
  // e (one worker of 2 GPUs) at 3: after best fit node 0 still has 2 free, so e runs 3-103;
  // after first fit each node has 1 free, so e waits for a's end at 100 and runs 100-200.
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                    "a,0,1,2,100\nc,1,1,3,100\nd,2,1,1,100\ne,3,1,2,100\n");
  RunOutput best = run_policy("fifo", c, w, {}, "consolidate");
  RunOutput first = run_policy("fifo", c, w, {}, "first-fit");
  CHECK(end_s(best, w, "e") == 103);
  CHECK(end_s(first, w, "e") == 200);
  CHECK(end_s(first, w, "d") == 102);
}

TEST_CASE("first-fit spreads a job that no node holds over nodes in id order",
          "[policy][placement]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 3, devices: {V100: 4}}\n");
  // x (1 GPU) takes node 0. y (6 workers of 1 GPU) fits no single node: first fit takes 3 on
  // node 0 and 3 on node 1, leaving node 2 whole; consolidate takes the emptiest nodes, 4 on
  // node 1 and 2 on node 2, leaving 3 and 2 free. z (4 GPUs, one worker) at 2 then starts at
  // once on node 2 under first fit (ends 102) and waits for x's end at 100 under consolidate,
  // when node 0 is whole again (ends 200).
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                    "x,0,1,1,100\ny,1,6,1,100\nz,2,1,4,100\n");
  RunOutput first = run_policy("fifo", c, w, {}, "first-fit");
  RunOutput best = run_policy("fifo", c, w, {}, "consolidate");
  CHECK(first.state.jobs[job_named(w, "y")].nodes_used == 2);
  CHECK(end_s(first, w, "y") == 101);
  CHECK(end_s(first, w, "z") == 102);
  CHECK(end_s(best, w, "z") == 200);
}

TEST_CASE("consolidate best-fits a node and spans few nodes when it must", "[policy][placement]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 3, devices: {V100: 4}}\n");
  // a (3 GPUs) lands on node 0, leaving 1 free there. b (1 GPU) best-fits into node 0's last
  // GPU rather than opening node 1. d (8 GPUs, 8 workers) then needs nodes 1 and 2 whole.
  Workload w =
      workload_from_csv(c, "id,submit_s,workers,duration_s\na,0,3,100\nb,1,1,100\nd,2,8,100\n");
  RunOutput out = run_policy("fifo", c, w);
  CHECK(out.state.jobs[job_named(w, "a")].nodes_used == 1);
  CHECK(out.state.jobs[job_named(w, "d")].nodes_used == 2);
  // All three run at once (3 + 1 + 8 = 12 GPUs), so each ends 100 s after its submit.
  CHECK(end_s(out, w, "b") == 101);
  CHECK(end_s(out, w, "d") == 102);
}
