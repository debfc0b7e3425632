// Google Benchmark of Gavel's per-round allocation LPs (docs/gavel.md#solver-cost): one solve for
// 1,000 active jobs on 3 device types (Gavel's V100, P100 and K80 counts of its Figure 8 cluster,
// 36 each), the size a busy round reaches. Throughputs are drawn from a fixed seed: 1-4 it/s on
// the fastest type and 20-100% of that on the others; a tenth of the jobs use 2 or 4 devices.
// The *_queue cases are a round under a standing queue on one device type (the whole Philly trace
// on philly-512.yaml): 250 to 2,000 active jobs on 512 devices, of 4 models and Philly's GPU
// counts, solved as they are and with identical jobs merged (merge_identical).
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

// Jobs of 4 models (throughputs 1, 2, 3, 4 it/s) on 1, 2, 4, 8 or 16 of 512 devices of one type,
// in Philly's proportions of GPU counts (gen_trace.cpp's weights).
AllocationProblem queue_round(std::size_t jobs) {
  std::mt19937_64 rng(7);
  std::discrete_distribution<int> size({76627, 1818, 1870, 1643, 289});
  AllocationProblem p;
  p.jobs = jobs;
  p.types = 1;
  p.capacity = {512};
  for (std::size_t i = 0; i < jobs; ++i) {
    p.throughput.push_back(1.0 + static_cast<double>(rng() % 4));
    p.scale.push_back(1U << size(rng));
    p.weight.push_back(1);
  }
  return p;
}

void solve_queue(benchmark::State& state, AllocationObjective o, bool merge) {
  const AllocationProblem p = queue_round(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::vector<double> x;
    if (merge) {
      const MergedProblem m = merge_identical(p);
      x = split_merged(m, solve_allocation(m.problem, o));
    } else {
      x = solve_allocation(p, o);
    }
    benchmark::DoNotOptimize(x.data());
  }
}

void throughput_queue(benchmark::State& s) {
  solve_queue(s, AllocationObjective::kMaxSumThroughput, false);
}
void throughput_queue_merged(benchmark::State& s) {
  solve_queue(s, AllocationObjective::kMaxSumThroughput, true);
}
void max_min_queue(benchmark::State& s) {
  solve_queue(s, AllocationObjective::kMaxMinFairness, false);
}
void max_min_queue_merged(benchmark::State& s) {
  solve_queue(s, AllocationObjective::kMaxMinFairness, true);
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
BENCHMARK(throughput_queue)
    ->Arg(250)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(2000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(throughput_queue_merged)->Arg(250)->Arg(2000)->Unit(benchmark::kMillisecond);
BENCHMARK(max_min_queue)->Arg(250)->Arg(500)->Arg(1000)->Arg(2000)->Unit(benchmark::kMillisecond);
BENCHMARK(max_min_queue_merged)->Arg(250)->Arg(2000)->Unit(benchmark::kMillisecond);
