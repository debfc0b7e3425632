// Google Benchmark of Gavel's per-round allocation LPs (docs/gavel.md#solver-cost): one solve for
// 1,000 active jobs on 3 device types (Gavel's V100, P100 and K80 counts of its Figure 8 cluster,
// 36 each), the size a busy round reaches. Throughputs are drawn from a fixed seed: 1-4 it/s on
// the fastest type and 20-100% of that on the others; a tenth of the jobs use 2 or 4 devices.
#include "policies/gavel/allocation.h"

#include <benchmark/benchmark.h>

#include <random>

namespace {

using namespace dlsim;

AllocationProblem busy_round(std::size_t jobs) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  AllocationProblem p;
  p.jobs = jobs;
  p.types = 3;
  p.capacity = {36, 36, 36};
  for (std::size_t i = 0; i < jobs; ++i) {
    const double best = 1 + 3 * u(rng);
    p.throughput.push_back(best);
    p.throughput.push_back(best * (0.2 + 0.8 * u(rng)));
    p.throughput.push_back(best * (0.2 + 0.8 * u(rng)));
    const double r = u(rng);
    p.scale.push_back(r < 0.9 ? 1 : (r < 0.95 ? 2 : 4));
    p.weight.push_back(1);
    p.remaining.push_back(1e3 + 1e5 * u(rng));
    p.since_start_s.push_back(3600 * 10 * u(rng));
    p.isolated_finish_s.push_back(p.since_start_s.back() + 3600 * 50 * (0.1 + u(rng)));
  }
  return p;
}

void solve(benchmark::State& state, AllocationObjective o) {
  const AllocationProblem p = busy_round(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    auto x = solve_allocation(p, o);
    benchmark::DoNotOptimize(x.data());
  }
}

void max_min(benchmark::State& s) {
  solve(s, AllocationObjective::kMaxMinFairness);
}
void max_min_agnostic(benchmark::State& s) {
  solve(s, AllocationObjective::kMaxMinFairnessAgnostic);
}
void finish_time(benchmark::State& s) {
  solve(s, AllocationObjective::kFinishTimeFairness);
}
void min_duration(benchmark::State& s) {
  solve(s, AllocationObjective::kMinTotalDuration);
}
void max_throughput(benchmark::State& s) {
  solve(s, AllocationObjective::kMaxSumThroughput);
}

} // namespace

BENCHMARK(max_min)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(max_min_agnostic)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(finish_time)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(min_duration)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(max_throughput)->Arg(1000)->Unit(benchmark::kMillisecond);
