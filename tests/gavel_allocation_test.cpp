// Gavel's allocation LPs (policies/gavel/allocation.h) on cases small enough to solve by hand.
#include "policies/gavel/allocation.h"
#include "tests/support/allocation_check.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

using namespace dlsim;

namespace {

// Types V and K, one device each; jobs A, B, C on one device each. Iterations per second:
// A: V 4, K 1;  B: V 2, K 1;  C: V 3, cannot run on K.
AllocationProblem three_by_two() {
  AllocationProblem p;
  p.jobs = 3;
  p.types = 2;
  p.throughput = {4, 1, 2, 1, 3, 0};
  p.scale = {1, 1, 1};
  p.capacity = {1, 1};
  p.weight = {1, 1, 1};
  return p;
}

double x_of(const std::vector<double>& x, std::size_t i, std::size_t t) {
  return x[i * 2 + t];
}

} // namespace

TEST_CASE("gavel allocation: proportional and isolated throughputs", "[gavel]") {
  const AllocationProblem p = three_by_two();
  // Proportional share: X = N[t] / sum N = 1/2 on each type.
  const auto prop = proportional_throughputs(p);
  CHECK(prop[0] == Approx(2.5)); // (4 + 1) / 2
  CHECK(prop[1] == Approx(1.5)); // (2 + 1) / 2
  CHECK(prop[2] == Approx(1.5)); // (3 + 0) / 2
  // Isolated share: X = N[t] / (3 jobs x 1 device) = 1/3 on each type, rows sum to 2/3 <= 1.
  const auto iso = isolated_throughputs(p);
  CHECK(iso[0] == Approx(5.0 / 3));
  CHECK(iso[2] == Approx(1.0));
}

TEST_CASE("gavel allocation: max-min fairness, 3 jobs x 2 types, worked by hand", "[gavel]") {
  const AllocationProblem p = three_by_two();
  const auto x = solve_allocation(p, AllocationObjective::kMaxMinFairness);
  dlsim::test::require_feasible(p, x, 1e-9);
  // Normalized throughput = sum_t X T / P with P from the test above:
  //   A: (1.6 aV + 0.4 aK), B: (4/3 bV + 2/3 bK), C: 2 cV.
  // K is worth half of V to B and a quarter to A, so B takes K; B then needs a little of V.
  // With all three equal to z and both types full: cV = z/2, bV = b, bK = 1 - b, aK = b,
  // aV = 1 - z/2 - b; B = 2/3 + 2b/3 = z and A = 1.6 - 0.8 z - 1.2 b = z give
  // z = 2.8 / 3.6 = 7/9 and b = 1/6. Optimal: the dual prices p_V = 4/9, p_K = 1/9 and B's
  // row price 2/9 (weights 5/18, 1/2, 2/9 on A, B, C) are feasible and sum to 7/9.
  const double z = 7.0 / 9;
  CHECK(x_of(x, 2, 0) == Approx(7.0 / 18).margin(1e-9)); // cV = z / 2
  CHECK(x_of(x, 1, 0) == Approx(1.0 / 6).margin(1e-9));  // bV
  CHECK(x_of(x, 1, 1) == Approx(5.0 / 6).margin(1e-9));  // bK
  CHECK(x_of(x, 0, 1) == Approx(1.0 / 6).margin(1e-9));  // aK
  CHECK(x_of(x, 0, 0) == Approx(4.0 / 9).margin(1e-9));  // aV = 1 - 7/18 - 1/6
  CHECK((1.6 * x_of(x, 0, 0) + 0.4 * x_of(x, 0, 1)) == Approx(z));
  CHECK((4.0 / 3 * x_of(x, 1, 0) + 2.0 / 3 * x_of(x, 1, 1)) == Approx(z));
  CHECK(2 * x_of(x, 2, 0) == Approx(z));
}

TEST_CASE("gavel allocation: heterogeneity-agnostic max-min fairness shares time", "[gavel]") {
  const AllocationProblem p = three_by_two();
  const auto x = solve_allocation(p, AllocationObjective::kMaxMinFairnessAgnostic);
  dlsim::test::require_feasible(p, x, 1e-9);
  // Every usable type counts as 1, so P = (sum of N over usable types) / sum N: 1 for A and B,
  // 1/2 for C, which can use the V only. Maximise z with aV + aK >= z, bV + bK >= z and
  // cV / (1/2) >= z: the time given out, z + z + z/2, is at most the 2 devices, so z = 0.8: A
  // and B get 0.8 of a device's time, C 0.4 (half, as its equal share is half).
  CHECK(x_of(x, 0, 0) + x_of(x, 0, 1) == Approx(0.8));
  CHECK(x_of(x, 1, 0) + x_of(x, 1, 1) == Approx(0.8));
  CHECK(x_of(x, 2, 0) == Approx(0.4));
}

TEST_CASE("gavel allocation: maximum sum throughput", "[gavel]") {
  const AllocationProblem p = three_by_two();
  const auto x = solve_allocation(p, AllocationObjective::kMaxSumThroughput);
  dlsim::test::require_feasible(p, x, 1e-9);
  // V to its fastest job (A, 4 it/s); A's time is used up, so K goes to B (1): total 5. Any
  // other split loses: C on V gives 3, and A cannot hold both devices at once.
  CHECK(x_of(x, 0, 0) == Approx(1));
  CHECK(x_of(x, 1, 1) == Approx(1));
  CHECK(x_of(x, 2, 0) == Approx(0).margin(1e-12));
}

TEST_CASE("gavel allocation: minimum total duration", "[gavel]") {
  AllocationProblem p = three_by_two();
  p.remaining = {4, 1, 3};
  const auto x = solve_allocation(p, AllocationObjective::kMinTotalDuration);
  dlsim::test::require_feasible(p, x, 1e-9);
  // z = 1/M: 4 aV + aK >= 4z, 2 bV + bK >= z, 3 cV >= 3z. B on K (bK = z), C on V (cV = z),
  // A on what is left: aV = 1 - z, aK = 1 - z (row 2 - 2z <= 1 for z >= 1/2), so
  // 5 (1 - z) >= 4z: z = 5/9, M = 1.8 s. Optimal: dual y_A = y_B = 1/9, y_C = 4/27, p_V = 4/9,
  // p_K = 1/9 (sum_i R_i y_i = 1) bound z by 5/9.
  double makespan = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const double rate =
        p.throughput[i * 2] * x_of(x, i, 0) + p.throughput[i * 2 + 1] * x_of(x, i, 1);
    makespan = std::max(makespan, p.remaining[i] / rate);
  }
  CHECK(makespan == Approx(1.8));
}

TEST_CASE("gavel allocation: finish-time fairness", "[gavel]") {
  // One device, two jobs of 1 iteration at 1 it/s, each with an isolated finish time of 2 s.
  AllocationProblem p;
  p.jobs = 2;
  p.types = 1;
  p.throughput = {1, 1};
  p.scale = {1, 1};
  p.capacity = {1};
  p.weight = {1, 1};
  p.remaining = {1, 1};
  p.isolated_finish_s = {2, 2};
  SECTION("equal jobs share equally") {
    p.since_start_s = {0, 0};
    const auto x = solve_allocation(p, AllocationObjective::kFinishTimeFairness);
    // rho_i = (1 / x_i) / 2; with x_A + x_B = 1 the max is least at x = 1/2: rho = 1.
    CHECK(x[0] == Approx(0.5).epsilon(2e-3));
    CHECK(x[1] == Approx(0.5).epsilon(2e-3));
  }
  SECTION("the job that has waited longer gets more") {
    p.since_start_s = {1, 0};
    const auto x = solve_allocation(p, AllocationObjective::kFinishTimeFairness);
    // (1 + 1/a) / 2 = (1 / (1 - a)) / 2  =>  a^2 + a - 1 = 0  =>  a = (sqrt 5 - 1) / 2.
    const double a = (std::sqrt(5.0) - 1) / 2;
    CHECK(x[0] == Approx(a).epsilon(2e-3));
    const double rho = std::max((1 + 1 / x[0]) / 2, (1 / x[1]) / 2);
    CHECK(rho == Approx(1 / (2 * (1 - a))).epsilon(2e-3)); // 1.309
  }
}

TEST_CASE("gavel allocation: a job that runs nowhere gets nothing", "[gavel]") {
  AllocationProblem p = three_by_two();
  p.throughput[4] = 0; // C runs on no type now
  const auto x = solve_allocation(p, AllocationObjective::kMaxMinFairness);
  dlsim::test::require_feasible(p, x, 1e-9);
  CHECK(x_of(x, 2, 0) == 0);
  // A and B alone: the minimum over them is positive (C does not pin it to 0).
  CHECK((1.6 * x_of(x, 0, 0) + 0.4 * x_of(x, 0, 1)) > 0.5);
}
