// PriorityPass without preemption passes over the waiting jobs of a shape that the free devices
// cannot hold (PriorityPass::pass_over_unplaceable). Such a job fails the placement check in every
// round, so with no bound on the rounds the pass must choose exactly what the pass that offers
// them step 1's capacity chooses. With the bound (8 rounds; the last round's choice stands,
// failures and all), offering them spends rounds on them; on these traces the pass that passes
// them over reaches the unbounded choice at least as often (a fixed seed: one decision that differs
// changes the rest of a run, so the counts are of whole trajectories). A policy with a fixed random
// priority per job that preempts only at rounds (every 300 s, as aiturbo does) runs random traces
// of one- and two-worker jobs on random clusters of one device type each way.
#include "tests/support/fixed_priority_pass.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <random>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// Preempting only at rounds, passing over unplaceable shapes or not, with at most max_rounds.
PassOutcome run_rounds_only(bool pass_over, int max_rounds, const Cluster& c, const Workload& w) {
  return run_fixed_priority(
      {.rounds_only = true, .pass_over_unplaceable = pass_over, .max_rounds = max_rounds}, c, w);
}

// Jobs whose first start, end and preemptions differ between two runs (every job when one failed).
std::size_t differing_jobs(const PassOutcome& a, const PassOutcome& b, std::size_t jobs) {
  if (!a.out || !b.out) return a.error == b.error && !a.out && !b.out ? 0 : jobs;
  std::size_t n = 0;
  for (std::size_t j = 0; j < jobs; ++j) {
    const JobState& x = a.out->state.jobs[j];
    const JobState& y = b.out->state.jobs[j];
    if (x.first_start != y.first_start || x.end != y.end || x.preemptions != y.preemptions) ++n;
  }
  return n;
}

} // namespace

TEST_CASE("PriorityPass: passing over unplaceable shapes chooses as offering them",
          "[unplaceable_pass]") {
  constexpr int kUnbounded = 1000;
  std::mt19937 rng(29);
  std::size_t preempted = 0;
  std::size_t waited = 0;
  std::size_t stray_offered = 0; // jobs unlike the unbounded run, at the bound of 8 rounds
  std::size_t stray_passed = 0;
  for (int trial = 0; trial < 60; ++trial) {
    // 2-6 nodes of 4-8 GPUs, more work than they hold: a standing queue of jobs of one or two
    // workers of 1-8 GPUs, many of which fit the count of free devices but no node's.
    const unsigned nodes = 2 + rng() % 5;
    const unsigned per_node = 4 + rng() % 5;
    const Cluster c = cluster_from_yaml(
        fmt::format("nodes:\n  - {{count: {}, devices: {{V100: {}}}}}\n", nodes, per_node));
    std::string csv = "id,submit_s,workers,gpus_per_worker,duration_s\n";
    for (int j = 0; j < 80; ++j) {
      const unsigned workers = rng() % 4 == 0 ? 2 : 1;
      const unsigned per = 1 + rng() % per_node;
      csv +=
          fmt::format("j{},{},{},{},{}\n", j, j * (1 + rng() % 30), workers, per, 20 + rng() % 900);
    }
    const Workload w = workload_from_csv(c, csv);
    const std::size_t jobs = w.jobs.size();
    const PassOutcome offered = run_rounds_only(false, kUnbounded, c, w);
    const PassOutcome passed = run_rounds_only(true, kUnbounded, c, w);
    REQUIRE(offered.out);
    CHECK(differing_jobs(offered, passed, jobs) == 0);
    for (std::size_t j = 0; j < jobs; ++j) {
      preempted += offered.out->state.jobs[j].preemptions;
      if (offered.out->state.jobs[j].first_start > w.jobs[j].request.submit) ++waited;
    }
    stray_offered += differing_jobs(offered, run_rounds_only(false, 8, c, w), jobs);
    stray_passed += differing_jobs(offered, run_rounds_only(true, 8, c, w), jobs);
  }
  CHECK(preempted > 0); // rounds preempt
  CHECK(waited > 0);    // and jobs wait between them
  INFO("jobs unlike the unbounded pass at 8 rounds: offered " << stray_offered << ", passed over "
                                                              << stray_passed);
  CHECK(stray_offered > 0); // the bound binds on these traces
  CHECK(stray_passed <= stray_offered);
}
