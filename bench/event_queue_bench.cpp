// Google Benchmark of dlsim::EventQueue, the runtime's future event list: push+pop throughput
// at the queue sizes a replay sees (docs/performance.md reports the figures).
#include "sim/engine/event_queue.h"
#include "sim/engine/rng.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace {

using dlsim::EventKind;
using dlsim::EventQueue;
using dlsim::Rng;
using dlsim::SimTime;

// Random draws are made before timing starts, so that the figures are the queue's alone. The
// ring is a power of two long and larger than the L1 cache, and its values repeat only after
// 65,536 operations, so no branch pattern is learned from it.
constexpr std::size_t kRing = 1 << 16;

struct Draws {
  std::vector<SimTime> delay; // exponential, mean 1 hour in microseconds
  std::vector<EventKind> kind;
};

const Draws& draws() {
  static const Draws d = [] {
    Draws out;
    Rng rng = Rng::stream(1, "bench.event-queue");
    // Job events only: wake-ups share an entry per instant (event_queue_repeated_wakeup).
    constexpr EventKind kKinds[] = {EventKind::kJobFinish, EventKind::kActionDone,
                                    EventKind::kArrival};
    for (std::size_t i = 0; i < kRing; ++i) {
      out.delay.push_back(static_cast<SimTime>(rng.exponential(1.0 / 3.6e9)));
      out.kind.push_back(kKinds[rng.below(3)]);
    }
    return out;
  }();
  return d;
}

// A queue holding n events at random times in the first hour.
EventQueue filled(std::size_t n) {
  const Draws& d = draws();
  EventQueue q;
  q.reserve(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    q.push(d.delay[i % kRing] % 3'600'000'000, d.kind[i % kRing], static_cast<std::uint32_t>(i));
  }
  return q;
}

// The "hold" model (Vaucher and Duval, CACM 1975): pop the earliest event and push one at a
// random delay after it, so the queue stays at n events -- what a discrete-event loop does in
// steady state. One item = one push plus one pop.
void event_queue_hold(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Draws& d = draws();
  EventQueue q = filled(n);
  std::size_t i = 0;
  for (auto _ : state) {
    dlsim::Event e = q.pop();
    benchmark::DoNotOptimize(e);
    q.push(e.time + d.delay[i], d.kind[i], e.subject, e.generation + 1);
    i = (i + 1) & (kRing - 1);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("items = push+pop pairs");
}
BENCHMARK(event_queue_hold)->Arg(1'000)->Arg(10'000)->Arg(100'000)->Arg(1'000'000);

// Fill an empty queue with n events, then drain it: a burst (many arrivals at once) rather
// than a steady state. One item = one push plus one pop.
void event_queue_fill_drain(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Draws& d = draws();
  EventQueue q;
  q.reserve(n);
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) {
      q.push(d.delay[i & (kRing - 1)], d.kind[i & (kRing - 1)], static_cast<std::uint32_t>(i));
    }
    while (!q.empty())
      benchmark::DoNotOptimize(q.pop());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
  state.SetLabel("items = push+pop pairs");
}
BENCHMARK(event_queue_fill_drain)->Arg(1'000)->Arg(100'000)->Arg(1'000'000);

// A policy that asks for the same few instants again and again (util-reactive asks, at every
// decision, for the instant each job being profiled will have been measured): k instants are
// pending among 10,000 job events, and every wake-up asked for is at one of them, so it only
// adds to that instant's count. One item = one push_wakeup.
void event_queue_repeated_wakeup(benchmark::State& state) {
  const auto k = static_cast<std::size_t>(state.range(0));
  EventQueue q = filled(10'000);
  std::vector<SimTime> instants;
  for (std::size_t i = 0; i < k; ++i) {
    instants.push_back(3'600'000'000 + draws().delay[i]);
    q.push_wakeup(instants.back());
  }
  std::size_t i = 0;
  for (auto _ : state) {
    q.push_wakeup(instants[i]);
    i = i + 1 == k ? 0 : i + 1;
  }
  benchmark::DoNotOptimize(q.top());
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("items = wake-ups asked for");
}
BENCHMARK(event_queue_repeated_wakeup)->Arg(10)->Arg(100)->Arg(10'000);

} // namespace
