// k8s-default and kube-batch / Volcano on tiny clusters: the deadlock of pod-by-pod placement and
// what gang scheduling does instead, queue shares and reclaim (proportion), priority preemption,
// node scoring (nodeorder, binpack), queue capability, and configuration errors. Every expected
// number is worked out in the comment above it. Tiny clusters have cpu_cores = 8 and memory_gb
// = 64 per device by default, and these jobs ask for no host CPUs or memory, so shares and
// scores are decided by devices alone.
#include "policies/registry.h"
#include "sim/engine/error.h"
#include "tests/support/harness.h"
#include "tests/support/invariants.h"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace dlsim;
using namespace dlsim::test;

namespace {

struct Run {
  SimState state;
  RunResult result;
};

// Runs a registry policy with parameters given as YAML text, the invariant checker attached.
Run run_kube(const std::string& name, const std::string& params, const Cluster& cluster,
             const Workload& workload, const RuntimeConfig& config = {}) {
  const PolicyEntry& entry = find_policy(name);
  PolicySetup setup{Placement::kConsolidate, resolve_params(entry, YAML::Load(params))};
  auto policy = entry.make(setup);
  Simulation sim(cluster, workload, config, *policy, PolicyInfo{name, entry.oracle});
  InvariantChecker checker;
  sim.add_observer(&checker);
  Run r;
  r.result = sim.run();
  checker.check_final(sim.state());
  r.state = sim.state();
  return r;
}

struct Jobs {
  const SimState& s;
  const Workload& w;
  const JobState& operator[](const std::string& name) const { return s.jobs[job_named(w, name)]; }
  double start(const std::string& name) const { return to_seconds((*this)[name].first_start); }
  double end(const std::string& name) const { return to_seconds((*this)[name].end); }
};

RuntimeConfig costs(double suspend_s, double resume_s) {
  RuntimeConfig c;
  c.costs.suspend_s = suspend_s;
  c.costs.resume_s = resume_s;
  return c;
}

constexpr const char* kFourGpus = "nodes:\n  - {count: 1, devices: {V100: 4}}\n";
constexpr const char* kEightGpus = "nodes:\n  - {count: 1, devices: {V100: 8}}\n";
constexpr const char* kTwoNodes = "nodes:\n  - {count: 2, devices: {V100: 4}}\n";

// Two jobs of 4 one-GPU workers, both submitted at 0, 100 s each.
constexpr const char* kTwoGangs = "id,submit_s,workers,duration_s\na,0,4,100\nb,0,4,100\n";

// kube-batch's default tiers without the gang plugin.
constexpr const char* kNoGang =
    "{tiers: [{plugins: [{name: priority}]}, {plugins: [{name: drf}, {name: predicates}, "
    "{name: proportion}, {name: nodeorder}]}]}";

} // namespace

// ---- k8s-default ------------------------------------------------------------------------------

TEST_CASE("k8s-default deadlocks two 4-GPU jobs on a 4-GPU cluster", "[policy][k8s]") {
  // Pods are created 0.1 s apart: a0 and b0 at 0, a1 and b1 at 0.1, a2 and b2 at 0.2, a3 and b3
  // at 0.3. The queue takes them by creation time, then job: a0 -> GPU 0, b0 -> GPU 1 at 0;
  // a1 -> GPU 2, b1 -> GPU 3 at 0.1; from 0.2 on no GPU is free. Each job holds 2 GPUs, idle,
  // waiting for 2 more that the other holds: nothing ever runs, the run ends with both unfinished
  // and all 4 GPUs busy.
  Cluster c = cluster_from_yaml(kFourGpus);
  Workload w = workload_from_csv(c, kTwoGangs);
  Run r = run_kube("k8s-default", "", c, w);
  Jobs j{r.state, w};
  CHECK(r.result.unfinished == 2);
  CHECK(r.state.busy_gpus == 4);
  CHECK(j["a"].status == JobStatus::kBinding);
  CHECK(j["b"].status == JobStatus::kBinding);
  CHECK(j["a"].devices == std::vector<DeviceId>{0, 2});
  CHECK(j["b"].devices == std::vector<DeviceId>{1, 3});
  CHECK(j["a"].run_time == 0);
  CHECK(r.result.end == 300'000); // the last pod creation looked at, 0.3 s

  // With the pods of a job created together (pod_interval_s 0), a's four pods sort before b's:
  // a binds GPUs 0-3 and runs 0-100, then b runs 100-200. No deadlock, but only by luck of order.
  Run lucky = run_kube("k8s-default", "{pod_interval_s: 0}", c, w);
  Jobs l{lucky.state, w};
  CHECK(lucky.result.unfinished == 0);
  CHECK(l.end("a") == 100);
  CHECK(l.start("b") == 100);
  CHECK(l.end("b") == 200);
}

TEST_CASE("k8s-default spreads pods across nodes and starts a job when its last pod is bound",
          "[policy][k8s]") {
  // Two nodes of 4 GPUs. j (2 workers, 50 s) at 0: pod 0 scores on node 0 and node 1 alike
  // (empty nodes) -> the lower id, node 0, GPU 0. Pod 1 (created at 0.1): node 0 after the pod
  // would have 2 of 4 GPUs used, node 1 one of 4, and no CPU or memory in use (fractions
  // [0.5, 0, 0] vs [0.25, 0, 0]):
  //   node 0: LeastAllocated 100 x (1 - 0.5/3) = 83.33, Balanced 100 x (1 - std) = 76.43 -> 159.76
  //   node 1: LeastAllocated 100 x (1 - 0.25/3) = 91.67, Balanced 88.21 -> 179.88
  // so pod 1 goes to node 1 (GPU 4). The job starts at 0.1 when its second pod is bound: ends 50.1.
  Cluster c = cluster_from_yaml(kTwoNodes);
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\nj,0,2,50\n");
  Run r = run_kube("k8s-default", "", c, w);
  Jobs j{r.state, w};
  CHECK(j.start("j") == Approx(0.1));
  CHECK(j.end("j") == Approx(50.1));
  CHECK(j["j"].nodes_used == 2);
  // MostAllocated scores node 0 at 100 x 0.5/3 + 76.43 = 93.10 and node 1 at 100 x 0.25/3 +
  // 88.21 = 96.55: BalancedAllocation (weight 1 in the default profile) outweighs it, and pod 1
  // still goes to node 1, as in Kubernetes where MostAllocated alone does not pack against it.
  Run most = run_kube("k8s-default", "{scoring: MostAllocated}", c, w);
  CHECK(most.state.jobs[0].nodes_used == 2);
}

// ---- kube-batch: gang ---------------------------------------------------------------------------

TEST_CASE("kube-batch with gang runs the two 4-GPU jobs one after the other", "[policy][kube]") {
  // Default configuration (actions "allocate, backfill"; tiers [priority, gang], [drf,
  // predicates, proportion, nodeorder]). At 0 the session allocates a's four tasks (a is first by
  // creation time, then id): a is ready (4 >= minMember 4) and starts. b's first task finds no
  // idle or releasing device, so b's statement is discarded: b holds nothing. a runs 0-100; at
  // 100 b gets the 4 freed GPUs and runs 100-200.
  Cluster c = cluster_from_yaml(kFourGpus);
  Workload w = workload_from_csv(c, kTwoGangs);
  for (const char* name : {"kube-batch", "volcano"}) {
    Run r = run_kube(name, "", c, w);
    Jobs j{r.state, w};
    CHECK(r.result.unfinished == 0);
    CHECK(j.start("a") == 0);
    CHECK(j.end("a") == 100);
    CHECK(j.start("b") == 100);
    CHECK(j.end("b") == 200);
  }
}

TEST_CASE("kube-batch without gang binds tasks one by one and deadlocks like Kubernetes",
          "[policy][kube]") {
  // Without gang, no plugin checks readiness, so a job is "ready" after each task and its task is
  // bound at once (framework.md: JobReady). drf orders jobs by share: a and b start at 0 (tie:
  // creation time, then id: a). a gets GPU 0 -> share 1/4, so b (0) goes next: GPU 1; tie at 1/4
  // -> a: GPU 2; b: GPU 3. Each holds 2 of its 4 pods, idle, for ever.
  Cluster c = cluster_from_yaml(kFourGpus);
  Workload w = workload_from_csv(c, kTwoGangs);
  Run r = run_kube("kube-batch", kNoGang, c, w);
  Jobs j{r.state, w};
  CHECK(r.result.unfinished == 2);
  CHECK(j["a"].devices == std::vector<DeviceId>{0, 2});
  CHECK(j["b"].devices == std::vector<DeviceId>{1, 3});
  CHECK(r.state.busy_gpus == 4);
}

TEST_CASE("kube-batch lets a small job past a gang that does not fit", "[policy][kube]") {
  // x (2 GPUs, 0-50) holds half the node. y (4 workers) at 10: only 2 GPUs idle, nothing
  // releasing, so its statement is discarded and it holds nothing. z (1 GPU, 20 s) at 15 fits:
  // 15-35. y needs all 4: x ends at 50 but z held one GPU until 35, so y starts at 50, ends 150.
  Cluster c = cluster_from_yaml(kFourGpus);
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                    "x,0,1,2,50\ny,10,4,1,100\nz,15,1,1,20\n");
  Run r = run_kube("kube-batch", "", c, w);
  Jobs j{r.state, w};
  CHECK(j.start("z") == 15);
  CHECK(j.end("z") == 35);
  CHECK(j.start("y") == 50);
  CHECK(j.end("y") == 150);
}

// ---- kube-batch: proportion and reclaim
// ----------------------------------------------------------

namespace {

// Queue a (weight 3) fills 8 GPUs with eight 1-GPU jobs of 1000 s at 0; queue b (weight 1)
// submits four 1-GPU jobs of 100 s at 10.
constexpr const char* kTwoQueues = "id,submit_s,workers,duration_s,queue\n"
                                   "a0,0,1,1000,a\na1,0,1,1000,a\na2,0,1,1000,a\na3,0,1,1000,a\n"
                                   "a4,0,1,1000,a\na5,0,1,1000,a\na6,0,1,1000,a\na7,0,1,1000,a\n"
                                   "b0,10,1,100,b\nb1,10,1,100,b\nb2,10,1,100,b\nb3,10,1,100,b\n";

constexpr const char* kQueues = "queues: [{name: a, weight: 3}, {name: b, weight: 1}]";

} // namespace

TEST_CASE("proportion gives two queues 3:1 shares and reclaims when the second gets work",
          "[policy][kube][proportion]") {
  // suspend_s = resume_s = 5.
  // t=0: only queue a has jobs: deserved(a) = min(8 x 3/3, request 8) = 8: a0-a7 start on GPUs 0-7.
  // t=10: b's jobs arrive. Water-filling, total weight 4: a = min(8 x 3/4, 8) = 6, b = min(8 x 1/4,
  //   request 4) = 2; nothing left. reclaim: b (0 < 2, not overused), b0: gang (tier 1) finds no
  //   task beyond a 1-task job's minMember, so tier 2 decides: proportion lets a lose what it holds
  //   beyond 6: victims a7 (8 > 6), a6 (7 > 6), worst (newest, then higher id) first. Evicting a7
  //   frees GPU 7 (releasing): b0 is pipelined there. b1: a now holds 7 > 6: a6 goes, b1 pipelined.
  //   b holds 2 = deserved: overused, done. a6 and a7 are suspended, releasing GPUs 6-7 at 15.
  // t=15: deserved a = 6 (6 held + 2 suspended asking), b = 2. allocate: b first (share 0/2 < a's
  //   6/6): b0 -> GPU 6, b1 -> GPU 7, b reaches 2 (overused); a is overused (6 >= 6). b0, b1 run
  //   15-115, b2 and b3 wait: queue a keeps 6 GPUs, b 2: 3:1.
  // t=115: b2 -> GPU 6, b3 -> GPU 7: 115-215. t=215: only queue a asks; deserved 8: a6, a7 resume
  //   (5 s): they had run 0-10, 990 s left: 220-1210. a0-a5 never stop: end at 1000.
  Cluster c = cluster_from_yaml(kEightGpus);
  Workload w = workload_from_csv(c, kTwoQueues);
  std::string params =
      std::string("{actions: \"enqueue, reclaim, allocate, backfill\", ") + kQueues + "}";
  Run r = run_kube("kube-batch", params, c, w, costs(5, 5));
  Jobs j{r.state, w};
  REQUIRE(r.result.unfinished == 0);
  for (const char* a : {"a0", "a1", "a2", "a3", "a4", "a5"}) {
    CHECK(j.end(a) == 1000);
    CHECK(j[a].preemptions == 0);
  }
  for (const char* a : {"a6", "a7"}) {
    CHECK(j[a].preemptions == 1);
    CHECK(j.end(a) == 1210);
  }
  CHECK(j.start("b0") == 15);
  CHECK(j.start("b1") == 15);
  CHECK(j.end("b1") == 115);
  CHECK(j.start("b2") == 115);
  CHECK(j.start("b3") == 115);
  CHECK(j.end("b3") == 215);
  for (const char* b : {"b0", "b1", "b2", "b3"})
    CHECK(j[b].preemptions == 0);
}

TEST_CASE("reclaim places a task without a victim where an earlier eviction freed room",
          "[policy][kube][proportion]") {
  // Volcano's ValidateVictims: a node may take a reclaimer's task with no victim when its future
  // idle devices hold it. One node of 4 GPUs; queues a and b, weight 1 each; suspend_s =
  // resume_s = 5. A0 and A1 (queue a, 1 worker x 2 GPUs, 1000 s) at 0; B (queue b, 2 workers x
  // 1 GPU, gang of 2, 100 s) at 10.
  // t=0: only a has jobs, deserved(a) = min(4, request 4) = 4: A0 -> GPUs 0-1, A1 -> GPUs 2-3.
  // t=10: water-filling over weight 2: a = min(4 x 1/2, 4) = 2, b = min(4 x 1/2, request 2) = 2.
  //   reclaim, B's task 0: gang (tier 1) gives up no task of a 1-task job, so proportion (tier 2)
  //   decides: a holds 4 > 2, so A1 (newer by id) goes, and a then holds 2 = deserved, so A0
  //   stays. Evicting A1 releases 2 GPUs: task 0 is pipelined there (future idle 2 - 1 = 1).
  //   Task 1: a holds 2, not beyond its share: no victim; the node's future idle device holds it,
  //   so it is pipelined without one. B is pipelined (2 >= minMember 2): A1 is suspended. (Without
  //   this rule task 1 has no node, B's statement is undone and B waits for A0 and A1 to end at
  //   1000.)
  // t=15: A1's GPUs are free. reclaim promises B the idle GPUs without evicting anything, which is
  //   discarded; allocate: queue b (share 0) before a (2/2): B -> GPUs 2-3, runs 15-115. a is
  //   overused (holds 2 = deserved): A1 waits.
  // t=115: deserved(a) = 4: A1 resumes (5 s): it ran 0-10, 990 s left: 120-1110. A0: 0-1000.
  Cluster c = cluster_from_yaml(kFourGpus);
  Workload w = workload_from_csv(c, "id,submit_s,workers,gpus_per_worker,duration_s,queue\n"
                                    "A0,0,1,2,1000,a\nA1,0,1,2,1000,a\nB,10,2,1,100,b\n");
  std::string params = "{actions: \"reclaim, allocate, backfill\", queues: [{name: a, weight: 1}, "
                       "{name: b, weight: 1}]}";
  Run r = run_kube("kube-batch", params, c, w, costs(5, 5));
  Jobs j{r.state, w};
  REQUIRE(r.result.unfinished == 0);
  CHECK(j.start("B") == 15);
  CHECK(j.end("B") == 115);
  CHECK(j["A1"].preemptions == 1);
  CHECK(j.end("A1") == 1110);
  CHECK(j["A0"].preemptions == 0);
  CHECK(j.end("A0") == 1000);
}

TEST_CASE("a plugin that finds no victim ends its tier's say: gang beside proportion stops reclaim",
          "[policy][kube][proportion]") {
  // The same jobs with gang and proportion in one tier: gang allows no victim (every a job has
  // exactly its minMember of 1 task), so that tier has no victims and there is no later tier.
  // b waits for a to finish at 1000, then runs b0-b3 at once: 1000-1100 (deserved(b) = request 4).
  Cluster c = cluster_from_yaml(kEightGpus);
  Workload w = workload_from_csv(c, kTwoQueues);
  std::string params = std::string("{actions: \"reclaim, allocate\", ") + kQueues +
                       ", tiers: [{plugins: [{name: gang}, {name: proportion}]}]}";
  Run r = run_kube("kube-batch", params, c, w, costs(5, 5));
  Jobs j{r.state, w};
  for (const char* b : {"b0", "b1", "b2", "b3"}) {
    CHECK(j.start(b) == 1000);
    CHECK(j.end(b) == 1100);
  }
  CHECK(j["a7"].preemptions == 0);
}

TEST_CASE("a queue's capability caps its deserved share", "[policy][kube][proportion]") {
  // One queue with capability 2 GPUs on a 4-GPU node; j0-j2 (1 GPU, 100 s) at 0. deserved =
  // min(4, capability 2, request 3) = 2: j0 and j1 start (allocatable while held + 1 <= 2); j2 is
  // refused although 2 GPUs are idle, and starts at 100. With enqueue, j2 is not even admitted
  // (min 1 + held 0 + inqueue 2 > 2) until j0 and j1 end; the times are the same.
  Cluster c = cluster_from_yaml(kFourGpus);
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,queue\n"
                                    "j0,0,1,100,q\nj1,0,1,100,q\nj2,0,1,100,q\n");
  for (const char* actions : {"allocate", "enqueue, allocate"}) {
    std::string params = std::string("{actions: \"") + actions +
                         "\", queues: [{name: q, capability: {nvidia.com/gpu: 2}}]}";
    Run r = run_kube("kube-batch", params, c, w);
    Jobs j{r.state, w};
    CHECK(j.start("j0") == 0);
    CHECK(j.start("j1") == 0);
    CHECK(j.start("j2") == 100);
    CHECK(j.end("j2") == 200);
  }
}

// ---- kube-batch: priority and preempt
// ------------------------------------------------------------

TEST_CASE("priority preempts a lower-priority gang, equal priority waits",
          "[policy][kube][preempt]") {
  // Volcano's default tiers, gang and drf with enablePreemptable: false, so tier 1's priority and
  // conformance decide victims alone; no enqueue action (with it, H would never be admitted while
  // L holds the node: proportion's min 4 + allocated 4 > the cluster's 4, and overcommit's
  // 4 > 1.2 x 4 - 4 -- Volcano's behaviour). suspend_s = resume_s = 5.
  // L (4 workers, priority 0, 1000 s) runs from 0. H (4 workers, priority 10, 100 s) at 10:
  // allocate finds nothing; preempt: H0's victims on the node are L's tasks (lower priority);
  // evicting one suspends all of L (4 GPUs releasing), H0-H3 are pipelined there: H is
  // pipelined, the eviction commits. At 15 L's GPUs are free: H starts, 15-115.
  // E (4 workers, priority 0, 100 s) at 20: priority finds no victim (H is higher), tier 2 has no
  // preemptable plugin: E waits. At 115: L and E both wait, same priority, both not ready, share
  // 0: L is older: it resumes (5 s), runs its 990 s left 120-1110. E runs 1110-1210.
  Cluster c = cluster_from_yaml(kFourGpus);
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,priority\n"
                                    "L,0,4,1000,0\nH,10,4,100,10\nE,20,4,100,0\n");
  std::string params =
      "{actions: \"allocate, preempt, backfill\", tiers: ["
      "{plugins: [{name: priority}, {name: gang, enablePreemptable: false}, {name: conformance}]},"
      "{plugins: [{name: drf, enablePreemptable: false}, {name: predicates},"
      " {name: proportion}, {name: nodeorder}, {name: binpack}]}]}";
  Run r = run_kube("volcano", params, c, w, costs(5, 5));
  Jobs j{r.state, w};
  REQUIRE(r.result.unfinished == 0);
  CHECK(j["L"].preemptions == 1);
  CHECK(j.start("H") == 15);
  CHECK(j.end("H") == 115);
  CHECK(j.end("L") == 1110);
  CHECK(j.start("E") == 1110);
  CHECK(j.end("E") == 1210);
  CHECK(j["E"].preemptions == 0);
}

TEST_CASE("preempt for a gang takes idle devices first and evicts only what is missing",
          "[policy][kube][preempt]") {
  // One node of 4 GPUs, the Volcano tiers of the test above; suspend_s = resume_s = 5. L (1
  // worker, priority 0, 1000 s) at 0 holds GPU 0. H (4 workers, priority 10, 100 s) at 10:
  // allocate finds 3 idle GPUs for a gang of 4 and places nothing. preempt, H's tasks 0-2: the
  // node's future idle devices (3, then 2, then 1) hold each without a victim, so each is
  // pipelined there. Task 3: no idle device left, and the queue (deserved min(4, request 5) = 4)
  // holds 1 + 3 promised = 4: evicting L frees GPU 0 and its share; task 3 is pipelined. H is
  // pipelined and L suspended. At 15 H starts on GPUs 0-3: 15-115. L resumes at 115 (5 s) with
  // 990 s left: 120-1110. (Promising only devices being released would leave tasks 1-3 with no
  // node once L's one GPU is promised: H would wait for L's end at 1000.)
  Cluster c = cluster_from_yaml(kFourGpus);
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,priority\n"
                                    "L,0,1,1000,0\nH,10,4,100,10\n");
  std::string params =
      "{actions: \"allocate, preempt, backfill\", tiers: ["
      "{plugins: [{name: priority}, {name: gang, enablePreemptable: false}, {name: conformance}]},"
      "{plugins: [{name: drf, enablePreemptable: false}, {name: predicates},"
      " {name: proportion}, {name: nodeorder}, {name: binpack}]}]}";
  Run r = run_kube("volcano", params, c, w, costs(5, 5));
  Jobs j{r.state, w};
  REQUIRE(r.result.unfinished == 0);
  CHECK(j["L"].preemptions == 1);
  CHECK(j.start("H") == 15);
  CHECK(j.end("H") == 115);
  CHECK(j.end("L") == 1110);
}

// ---- kube-batch: node scoring
// --------------------------------------------------------------------

TEST_CASE("nodeorder spreads tasks, binpack packs them", "[policy][kube][score]") {
  // Two nodes of 4 GPUs; A (1 GPU) at 0, B (1 GPU) at 1, 100 s each. A: equal scores, node 0.
  // B with nodeorder (leastrequested 1, balancedresource 1), fractions after B of (GPU, CPU, mem):
  //   node 0 [0.5, 0, 0]: 100 x (1 - 1/6) + 100 x (1 - 0.2357) = 159.76
  //   node 1 [0.25, 0, 0]: 100 x (1 - 1/12) + 100 x (1 - 0.1179) = 179.88 -> node 1 (GPU 4).
  // With binpack scoring nvidia.com/gpu (weight 1; B asks no CPU or memory, so only GPUs count):
  //   node 0: 100 x (1 + 1) / 4 = 50; node 1: 100 x 1/4 = 25 -> node 0 (GPU 1).
  Cluster c = cluster_from_yaml(kTwoNodes);
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\nA,0,1,100\nB,1,1,100\n");
  // Devices are released when a job ends: look at B's through a run stopped at 50 s.
  auto placed = [&](const std::string& params) {
    const PolicyEntry& entry = find_policy("kube-batch");
    PolicySetup setup{Placement::kConsolidate, resolve_params(entry, YAML::Load(params))};
    auto policy = entry.make(setup);
    Simulation sim(c, w, RuntimeConfig{}, *policy, PolicyInfo{"kube-batch", false});
    InvariantChecker checker;
    sim.add_observer(&checker);
    sim.run(from_seconds(50));
    return sim.state().jobs[job_named(w, "B")].devices;
  };
  CHECK(placed("") == std::vector<DeviceId>{4});
  CHECK(placed("{tiers: [{plugins: [{name: gang}]}, {plugins: [{name: binpack, arguments: "
               "{binpack.resources: nvidia.com/gpu}}]}]}") == std::vector<DeviceId>{1});
}

// ---- configuration errors
// ------------------------------------------------------------------------

TEST_CASE("kube-batch configuration errors name the key and what is valid",
          "[policy][kube][errors]") {
  const PolicyEntry& entry = find_policy("kube-batch");
  auto make = [&](const std::string& params) {
    PolicySetup setup{Placement::kConsolidate, resolve_params(entry, YAML::Load(params))};
    return entry.make(setup);
  };
  CHECK_NOTHROW(make(""));
  CHECK_THROWS_WITH(make("{actions: \"allocate, shuffle\"}"),
                    Catch::Contains("policy.params.actions") &&
                        Catch::Contains("unknown action 'shuffle'") &&
                        Catch::Contains("enqueue, allocate, backfill, preempt, reclaim"));
  CHECK_THROWS_WITH(make("{tiers: [{plugins: [{name: tdm}]}]}"),
                    Catch::Contains("policy.params.tiers.0.plugins.0.name") &&
                        Catch::Contains("unknown plugin 'tdm'"));
  CHECK_THROWS_WITH(make("{tiers: [{plugins: [{name: gang, enableJobOder: false}]}]}"),
                    Catch::Contains("policy.params.tiers.0.plugins.0.enableJobOder") &&
                        Catch::Contains("unknown key"));
  CHECK_THROWS_WITH(make("{tiers: [{plugins: [{name: binpack, arguments: {binpack.gpu: 2}}]}]}"),
                    Catch::Contains("arguments.binpack.gpu") && Catch::Contains("binpack.weight"));
  CHECK_THROWS_WITH(make("{tiers: [{plugins: [{name: drf}, {name: drf}]}]}"),
                    Catch::Contains("listed twice"));
  CHECK_THROWS_WITH(make("{queues: [{name: a, weight: 0}]}"),
                    Catch::Contains("policy.params.queues.0.weight") &&
                        Catch::Contains("positive"));
  CHECK_THROWS_WITH(make("{queues: [{name: a}, {name: b, weight: 1e999}]}"),
                    Catch::Contains("policy.params.queues.1.weight") &&
                        Catch::Contains("expected a number"));
  CHECK_THROWS_WITH(make("{queues: [{name: a, capability: {memory: lots}}]}"),
                    Catch::Contains("queues.0.capability.memory") && Catch::Contains("quantity"));
  CHECK_NOTHROW(
      make("{queues: [{name: a, capability: {cpu: 500m, memory: 64Gi, nvidia.com/gpu: 4}}], "
           "tiers: [{plugins: [{name: predicates, arguments: {predicate.MemoryPressureEnable: "
           "true}}]}]}"));
  CHECK_THROWS_WITH(make("{lottery: 1}"), Catch::Contains("no such parameter"));

  // A trace queue that the queues do not list is an error at the first arrival.
  Cluster c = cluster_from_yaml(kFourGpus);
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,queue\nj,0,1,10,research\n");
  CHECK_THROWS_WITH(run_kube("kube-batch", "{queues: [{name: prod}]}", c, w),
                    Catch::Contains("queue 'research' is not listed (listed: prod)"));
  const PolicyEntry& k8s = find_policy("k8s-default");
  CHECK_THROWS_WITH(k8s.make(PolicySetup{Placement::kConsolidate,
                                         resolve_params(k8s, YAML::Load("{scoring: Random}"))}),
                    Catch::Contains("policy.params.scoring: expected one of: LeastAllocated, "
                                    "MostAllocated, got 'Random'"));
}

// ---- the command line
// ------------------------------------------------------------------------------

TEST_CASE("dlsim list policies shows k8s-default, kube-batch and volcano with their parameters",
          "[policy][kube][cli]") {
  ScratchDir dir;
  std::string out = dir.file("out.txt");
  std::string cmd = "'" DLSIM_BINARY "' list policies > '" + out + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string text = read_file(out);
  for (const char* s : {"k8s-default", "pod_interval_s", "scoring", "kube-batch", "volcano",
                        "actions", "tiers", "queues", "\"allocate, backfill\""}) {
    CHECK_THAT(text, Catch::Contains(s));
  }
}
