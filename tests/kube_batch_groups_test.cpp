// kube-batch's `allocate` walks the pending jobs by group (policies/kube_batch/actions/
// allocate.cpp, allocate_grouped): a group of jobs alike whose front job placed nothing is
// stepped over until the session's state changes, and tried again in the next session. These
// tests work two small cases by hand and compare the grouped walk with the full one (used when
// the actions include reclaim) on seeded overloaded traces.
#include "policies/registry.h"
#include "tests/support/harness.h"
#include "workloads/gen_trace.h"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>

using namespace dlsim;
using namespace dlsim::test;

namespace {

using Run = RunOutput;

// kube-batch with its parameters as YAML text, the invariant checker attached (harness.h).
Run run_kube(const std::string& params, const Cluster& cluster, const Workload& workload) {
  return run_policy(find_policy("kube-batch"), cluster, workload, YAML::Load(params));
}

double start_of(const Run& r, const Workload& w, const std::string& name) {
  return to_seconds(r.state.jobs[job_named(w, name)].first_start);
}
double end_of(const Run& r, const Workload& w, const std::string& name) {
  return to_seconds(r.state.jobs[job_named(w, name)].end);
}

// The same jobs through the full walk: `reclaim` first (so allocate does not group) with queues
// that may not be reclaimed from, so that reclaim finds no victim and changes nothing.
constexpr const char* kFullWalkOneQueue =
    "{actions: \"reclaim, allocate, backfill\", queues: [{name: default, reclaimable: false}]}";

} // namespace

TEST_CASE("kube-batch steps over a gang that does not fit and places it once devices free up",
          "[policy][kube][groups]") {
  // Two nodes of 4 V100s; default configuration (gang, drf, proportion, nodeorder).
  //   a: 1 x 4 GPUs, 0-100 s; b: 1 x 4 GPUs, 0-200 s: they fill both nodes at 0.
  //   c (at 10) and d (at 20): 2 x 4 GPUs, gangs of 2: one group (same shape, same minMember).
  //   e (at 30): 1 x 1 GPU, 150 s: another group.
  // Job order: creation time, so c, d, e (none holds anything: drf shares 0, none ready).
  // At 100 (a ends: 4 idle GPUs): c's gang check finds room for 4 / 4 = 1 < 2 tasks: c places
  // nothing, so its group is blocked and d (ordered before e) is stepped over; e fits: 100-250.
  // At 200 (b ends): 4 + 3 idle GPUs hold one 4-GPU task, not two: c and d wait.
  // At 250 (e ends): 8 idle: c starts, 250-350; d has no room again until c ends: 350-450.
  Cluster cl = cluster_from_yaml("nodes:\n  - {count: 2, devices: {V100: 4}}\n");
  Workload w = workload_from_csv(cl, "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                     "a,0,1,4,100\nb,0,1,4,200\nc,10,2,4,100\nd,20,2,4,100\n"
                                     "e,30,1,1,150\n");
  for (const char* params : {"{}", kFullWalkOneQueue}) {
    Run r = run_kube(params, cl, w);
    CHECK(r.result.unfinished == 0);
    CHECK(start_of(r, w, "a") == 0);
    CHECK(start_of(r, w, "b") == 0);
    CHECK(start_of(r, w, "e") == 100);
    CHECK(end_of(r, w, "e") == 250);
    CHECK(start_of(r, w, "c") == 250);
    CHECK(end_of(r, w, "c") == 350);
    CHECK(start_of(r, w, "d") == 350);
    CHECK(end_of(r, w, "d") == 450);
  }
}

TEST_CASE("kube-batch tries again a gang whose statement was discarded", "[policy][kube][groups]") {
  // Three nodes of 4 V100s, default configuration; nodeorder spreads (least requested first,
  // ties to the lower id).
  //   f1: 1 x 2 GPUs, 0-100 -> node 0; f2: 1 x 2 GPUs, 0-200 -> node 1 (emptier than node 0).
  //   c (at 10): 2 x 4 GPUs, gang of 2. Idle: 2 + 2 + 4 = 8 GPUs, room for 2 tasks by the
  //   gang check, so c's first task is allocated on node 2, its second finds no node and the
  //   statement is discarded: c was changed by the session and leaves its group until the next
  //   session builds it again.
  //   g (at 20): 1 x 2 GPUs, 50 s. c comes first again and is discarded again; g goes to node 2
  //   (4 idle, the least requested): 20-70. At 70 (g ends) c is discarded once more.
  // At 100 (f1 ends): nodes 0 and 2 have 4 idle GPUs each: c starts, 100-200.
  Cluster cl = cluster_from_yaml("nodes:\n  - {count: 3, devices: {V100: 4}}\n");
  Workload w = workload_from_csv(cl, "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                     "f1,0,1,2,100\nf2,0,1,2,200\nc,10,2,4,100\ng,20,1,2,50\n");
  for (const char* params : {"{}", kFullWalkOneQueue}) {
    Run r = run_kube(params, cl, w);
    CHECK(r.result.unfinished == 0);
    CHECK(start_of(r, w, "g") == 20);
    CHECK(end_of(r, w, "g") == 70);
    CHECK(start_of(r, w, "c") == 100);
    CHECK(end_of(r, w, "c") == 200);
    // Never suspended (the discarded statements held nothing): it ran from 100 to 200 at once.
    CHECK(to_seconds(r.state.jobs[job_named(w, "c")].run_time) == 100);
  }
}

namespace {

// A Philly-like trace far beyond the cluster (a standing queue of every shape), with two
// queues, a few jobs at priority 1, host CPUs per worker (fractional for some, which makes the
// proportion plugin add its sums job by job) and device types.
std::string overloaded_trace(std::uint64_t seed, bool fractional_cpus) {
  std::ostringstream csv;
  GenTraceOptions g;
  g.jobs = 300;
  g.seed = seed;
  g.arrival_rate_per_hour = 400;
  g.device_types = {"V100", "K80", "any-gpu"};
  g.device_type_weights = {2, 1, 2};
  generate_trace(g, csv);
  std::istringstream in(csv.str());
  std::string line;
  std::getline(in, line);
  std::string out = line + ",queue,priority,cpus_per_worker\n";
  for (int i = 0; std::getline(in, line); ++i) {
    const char* cpus = fractional_cpus && i % 5 == 0 ? "2.5" : (i % 2 == 0 ? "1" : "4");
    out += line + (i % 3 == 0 ? ",b" : ",a") + (i % 7 == 0 ? ",1," : ",0,") + cpus + "\n";
  }
  return out;
}

} // namespace

TEST_CASE("kube-batch's grouped allocate gives the full walk's schedule on overloaded traces",
          "[policy][kube][groups]") {
  Cluster cl = cluster_from_yaml("nodes:\n  - {count: 3, devices: {V100: 8}, cpu_cores: 16}\n"
                                 "  - {count: 2, devices: {K80: 8}, cpu_cores: 8}\n");
  // The tiers: kube-batch's default; without gang (tasks bound one by one: binding jobs hold
  // devices and wait in the group of other jobs); binpack instead of nodeorder.
  const char* tiers[] = {
      "[{plugins: [{name: priority}, {name: gang}]}, {plugins: [{name: drf}, {name: "
      "predicates}, {name: proportion}, {name: nodeorder}]}]",
      "[{plugins: [{name: priority}]}, {plugins: [{name: drf}, {name: predicates}, {name: "
      "proportion}, {name: nodeorder}]}]",
      "[{plugins: [{name: priority}, {name: gang}]}, {plugins: [{name: drf}, {name: "
      "predicates}, {name: proportion}, {name: binpack}]}]",
  };
  const char* queues = "[{name: a, weight: 3, reclaimable: false}, {name: b, weight: 1, "
                       "reclaimable: false}]";
  for (std::uint64_t seed : {3, 4}) {
    for (bool fractional : {false, true}) {
      Workload w = workload_from_csv(cl, overloaded_trace(seed, fractional));
      for (const char* t : tiers) {
        const std::string rest = std::string(", tiers: ") + t + ", queues: " + queues + "}";
        Run grouped = run_kube("{actions: \"allocate, backfill\"" + rest, cl, w);
        Run full = run_kube("{actions: \"reclaim, allocate, backfill\"" + rest, cl, w);
        INFO("seed " << seed << ", fractional CPUs " << fractional << ", tiers " << t);
        REQUIRE(grouped.state.jobs.size() == full.state.jobs.size());
        std::size_t differ = 0, started = 0;
        for (JobId j = 0; j < full.state.jobs.size(); ++j) {
          const JobState& a = grouped.state.jobs[j];
          const JobState& b = full.state.jobs[j];
          if (a.first_start != b.first_start || a.end != b.end || a.status != b.status) ++differ;
          if (b.first_start >= 0) ++started;
        }
        CHECK(differ == 0);
        CHECK(grouped.result.unfinished == full.result.unfinished);
        CHECK(started > 100); // the comparison covers many placements, not an empty run
      }
    }
  }
}
