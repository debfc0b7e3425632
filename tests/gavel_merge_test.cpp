// Identical jobs merged into one LP row (policies/gavel/allocation.h, merge_identical): on random
// problems with many identical jobs, the merged problem's X, split equally, is feasible for the
// unmerged problem and reaches the same objective value as the unmerged LP's own optimum, for
// every objective.
#include "policies/gavel/allocation.h"
#include "tests/support/allocation_check.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace dlsim;

namespace {

// Job i's iterations per second under X, with the throughputs the objective reads.
double rate(const AllocationProblem& p, const std::vector<double>& x, std::size_t i,
            bool agnostic) {
  double r = 0;
  for (std::size_t t = 0; t < p.types; ++t) {
    const double v = p.throughput[i * p.types + t];
    r += x[i * p.types + t] * (agnostic && v > 0 ? 1.0 : v);
  }
  return r;
}

// The objective's value at X, to be maximised (allocation.h's definitions).
double value(const AllocationProblem& p, const std::vector<double>& x, AllocationObjective o) {
  const bool agnostic = o == AllocationObjective::kMaxMinFairnessAgnostic;
  AllocationProblem seen = p;
  if (agnostic)
    for (double& v : seen.throughput)
      if (v > 0) v = 1.0;
  const std::vector<double> prop = proportional_throughputs(seen);
  double worst = std::numeric_limits<double>::infinity();
  double sum = 0;
  for (std::size_t i = 0; i < p.jobs; ++i) {
    const double r = rate(p, x, i, agnostic);
    sum += r;
    switch (o) {
    case AllocationObjective::kMaxMinFairness:
    case AllocationObjective::kMaxMinFairnessAgnostic:
      if (prop[i] > 0) worst = std::min(worst, r * p.scale[i] / (p.weight[i] * prop[i]));
      break;
    case AllocationObjective::kMinTotalDuration: // 1 / the makespan
      worst = std::min(worst, r / p.remaining[i]);
      break;
    case AllocationObjective::kFinishTimeFairness: // - the largest rho
      worst = std::min(worst, -(p.since_start_s[i] + p.remaining[i] / r) / p.isolated_finish_s[i]);
      break;
    case AllocationObjective::kMaxSumThroughput:
      break;
    }
  }
  return o == AllocationObjective::kMaxSumThroughput ? sum : worst;
}

// n jobs drawn from `kinds` distinct ones, so that many are identical.
AllocationProblem random_problem(std::mt19937& rng, bool progress) {
  AllocationProblem p;
  p.types = 1 + rng() % 3;
  p.jobs = 1 + rng() % 40;
  const std::size_t kinds = 1 + rng() % 5;
  std::vector<AllocationProblem> kind(kinds);
  for (AllocationProblem& k : kind) {
    for (std::size_t t = 0; t < p.types; ++t) // every job runs on type 0
      k.throughput.push_back(t == 0 || rng() % 3 ? 0.5 + (rng() % 40) / 8.0 : 0.0);
    k.scale = {1U << (rng() % 3)};
    k.remaining = {1000.0 + (rng() % 5) * 500};
    k.since_start_s = {100.0 * (rng() % 4)};
  }
  for (std::size_t i = 0; i < p.jobs; ++i) {
    const AllocationProblem& k = kind[rng() % kinds];
    p.throughput.insert(p.throughput.end(), k.throughput.begin(), k.throughput.end());
    p.scale.push_back(k.scale[0]);
    p.weight.push_back(1.0);
    if (!progress) continue;
    p.remaining.push_back(k.remaining[0]);
    p.since_start_s.push_back(k.since_start_s[0]);
  }
  for (std::size_t t = 0; t < p.types; ++t)
    p.capacity.push_back(1 + rng() % 12);
  if (progress) {
    const std::vector<double> iso = isolated_throughputs(p);
    for (std::size_t i = 0; i < p.jobs; ++i)
      p.isolated_finish_s.push_back(p.remaining[i] / iso[i]);
  }
  return p;
}

} // namespace

TEST_CASE("gavel: identical jobs merged into one LP row reach the unmerged LP's optimum",
          "[gavel][gavel-merge]") {
  std::mt19937 rng(39);
  const AllocationObjective objectives[] = {
      AllocationObjective::kMaxMinFairness, AllocationObjective::kMaxMinFairnessAgnostic,
      AllocationObjective::kMaxSumThroughput, AllocationObjective::kMinTotalDuration,
      AllocationObjective::kFinishTimeFairness};
  std::size_t merged_rows = 0;
  std::size_t jobs = 0;
  for (int instance = 0; instance < 300; ++instance) {
    for (AllocationObjective o : objectives) {
      const bool progress = o == AllocationObjective::kMinTotalDuration ||
                            o == AllocationObjective::kFinishTimeFairness;
      const AllocationProblem p = random_problem(rng, progress);
      INFO("instance " << instance << ", " << to_string(o) << ", " << p.jobs << " jobs");
      const std::vector<double> plain = solve_allocation(p, o);
      const MergedProblem m = merge_identical(p);
      const std::vector<double> split = split_merged(m, solve_allocation(m.problem, o));
      dlsim::test::require_feasible(p, split, 1e-7);
      // The finish-time bisection stops within 0.1% of rho, on either problem.
      const double tolerance = o == AllocationObjective::kFinishTimeFairness ? 2e-3 : 1e-7;
      const double want = value(p, plain, o);
      REQUIRE(value(p, split, o) == Approx(want).epsilon(tolerance).margin(1e-9));
      merged_rows += m.problem.jobs;
      jobs += p.jobs;
    }
  }
  // The draws do merge: at most 5 kinds per problem, about 20 jobs.
  CHECK(merged_rows * 2 < jobs);
}
