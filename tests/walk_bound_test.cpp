// PriorityPass's bounds on the walk (WalkItem::max_need, PriorityPass::shape_failed): a walk
// that passes over the waiting jobs asking for more devices than the bound, or of a shape that
// failed placement, must choose what the walk that offers every job chooses, in every round of
// the placement check. A policy with a fixed random priority per job
// (preemptive, through PriorityPass, HeldRuns and WaitingIndex as tiresias uses them) runs random
// traces on random clusters of one device type both ways; every job must start, end and be
// preempted at the same times. The plain walk also hands the holders one by one, not as runs:
// a run that does not fit whole (taken by stretches of its prefix sums, WalkItem::run_prefix)
// must choose what offering each of its jobs in turn chooses.
#include "tests/support/fixed_priority_pass.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <random>

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("PriorityPass: the bounded walk chooses as the walk of every job", "[walk_bound]") {
  std::mt19937 rng(17);
  std::size_t preempted = 0;
  for (int trial = 0; trial < 40; ++trial) {
    // 2-6 nodes of 4-8 GPUs; jobs of one worker of 1-4 GPUs, so that some fit the count of free
    // devices but no node (the placement check's later rounds).
    const unsigned nodes = 2 + rng() % 5;
    const unsigned per_node = 4 + rng() % 5;
    const Cluster c = cluster_from_yaml(
        fmt::format("nodes:\n  - {{count: {}, devices: {{V100: {}}}}}\n", nodes, per_node));
    std::string csv = "id,submit_s,workers,gpus_per_worker,duration_s\n";
    for (int j = 0; j < 60; ++j)
      csv +=
          fmt::format("j{},{},1,{},{}\n", j, j * (1 + rng() % 20), 1 + rng() % 4, 20 + rng() % 400);
    const Workload w = workload_from_csv(c, csv);
    const PassOutcome plain = run_fixed_priority({.bounded = false}, c, w);
    const PassOutcome bounded = run_fixed_priority({.bounded = true}, c, w);
    // Both walks run to the end, or fail alike.
    CHECK(plain.error == bounded.error);
    if (!plain.out || !bounded.out) continue;
    REQUIRE(plain.out->state.jobs.size() == bounded.out->state.jobs.size());
    for (std::size_t j = 0; j < plain.out->state.jobs.size(); ++j) {
      const JobState& a = plain.out->state.jobs[j];
      const JobState& b = bounded.out->state.jobs[j];
      CHECK(a.first_start == b.first_start);
      CHECK(a.end == b.end);
      CHECK(a.preemptions == b.preemptions);
      preempted += a.preemptions;
    }
  }
  CHECK(preempted > 0); // the traces make the pass preempt, not only fill free devices
}
