// Google Benchmark of dlsim::EventQueue, the runtime's future event list: push+pop throughput
// at the queue sizes a replay sees and beyond, against a calendar queue (bench/calendar_queue.h)
// as the candidate structure (docs/performance.md reports the figures).
#include "bench/calendar_queue.h"
#include "sim/engine/event_queue.h"
#include "sim/engine/rng.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using dlsim::EventKind;
using dlsim::EventQueue;
using dlsim::Rng;
using dlsim::SimTime;
using dlsim::bench::CalendarQueue;

// Random draws are made before timing starts, so that the figures are the queue's alone. The
// ring is a power of two long and larger than the L1 cache, and its values repeat only after
// 65,536 operations, so no branch pattern is learned from it.
constexpr std::size_t kRing = 1 << 16;

struct Draws {
  std::vector<SimTime> delay; // exponential, mean 1 hour in microseconds
  // Job run times as gen-trace draws them (log-normal, Philly's fit: mu 6.791, sigma 2.156 in
  // log seconds, 10 s to 53.6 days), in microseconds: what the delay to a finish event is in a
  // replay, heavy-tailed where the exponential is not.
  std::vector<SimTime> job_delay;
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
      const double run_s = std::clamp(std::round(rng.lognormal(6.791, 2.156)), 10.0, 4628226.0);
      out.job_delay.push_back(static_cast<SimTime>(run_s * 1e6));
    }
    return out;
  }();
  return d;
}

void reserve(EventQueue& q, std::size_t n) {
  q.reserve(n);
}
void reserve(CalendarQueue& /*q*/, std::size_t /*n*/) {}

// A queue holding n events at random times in the first hour.
template <class Queue>
Queue filled(std::size_t n) {
  const Draws& d = draws();
  Queue q;
  reserve(q, n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    q.push(d.delay[i % kRing] % 3'600'000'000, d.kind[i % kRing], static_cast<std::uint32_t>(i));
  }
  return q;
}

// The "hold" model (Vaucher and Duval, CACM 1975): pop the earliest event and push one at a
// random delay after it, so the queue stays at n events -- what a discrete-event loop does in
// steady state. One item = one push plus one pop.
template <class Queue, bool kJobDelays = false>
void hold(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Draws& d = draws();
  const std::vector<SimTime>& delay = kJobDelays ? d.job_delay : d.delay;
  Queue q = filled<Queue>(n);
  std::size_t i = 0;
  for (auto _ : state) {
    dlsim::Event e = q.pop();
    benchmark::DoNotOptimize(e);
    q.push(e.time + delay[i], d.kind[i], e.subject, e.generation + 1);
    i = (i + 1) & (kRing - 1);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("items = push+pop pairs");
}
void event_queue_hold(benchmark::State& state) {
  hold<EventQueue>(state);
}
void calendar_queue_hold(benchmark::State& state) {
  hold<CalendarQueue>(state);
}
BENCHMARK(event_queue_hold)->Arg(1'000)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Arg(10'000'000);
BENCHMARK(calendar_queue_hold)
    ->Arg(1'000)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Arg(10'000'000);

// The hold model with the delays of a replay's finish events: job run times.
void event_queue_hold_jobs(benchmark::State& state) {
  hold<EventQueue, true>(state);
}
void calendar_queue_hold_jobs(benchmark::State& state) {
  hold<CalendarQueue, true>(state);
}
BENCHMARK(event_queue_hold_jobs)->Arg(1'000)->Arg(10'000)->Arg(100'000)->Arg(1'000'000);
BENCHMARK(calendar_queue_hold_jobs)->Arg(1'000)->Arg(10'000)->Arg(100'000)->Arg(1'000'000);

// Fill an empty queue with n events, then drain it: a burst (many arrivals at once) rather
// than a steady state. One item = one push plus one pop.
template <class Queue>
void fill_drain(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Draws& d = draws();
  Queue q;
  reserve(q, n);
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
void event_queue_fill_drain(benchmark::State& state) {
  fill_drain<EventQueue>(state);
}
void calendar_queue_fill_drain(benchmark::State& state) {
  fill_drain<CalendarQueue>(state);
}
BENCHMARK(event_queue_fill_drain)->Arg(1'000)->Arg(100'000)->Arg(1'000'000)->Arg(10'000'000);
BENCHMARK(calendar_queue_fill_drain)->Arg(1'000)->Arg(100'000)->Arg(1'000'000)->Arg(10'000'000);

// A calendar queue's weak case: half the events at one instant (a burst of equal times) and
// half spread over the next day, then drained. Its day width is set from the earliest events'
// gaps, here 0, so after the burst each pop walks a whole year of empty days before it finds
// the next event, until a resize sets the width again. One item = one push plus one pop.
template <class Queue>
void burst_drain(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Draws& d = draws();
  for (auto _ : state) {
    Queue q;
    reserve(q, n);
    for (std::size_t i = 0; i < n; ++i) {
      const SimTime at = i % 2 == 0 ? 0 : 1 + d.delay[i & (kRing - 1)] * 24 % 86'400'000'000;
      q.push(at, EventKind::kJobFinish, static_cast<std::uint32_t>(i));
    }
    while (!q.empty())
      benchmark::DoNotOptimize(q.pop());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
  state.SetLabel("items = push+pop pairs");
}
void event_queue_burst_drain(benchmark::State& state) {
  burst_drain<EventQueue>(state);
}
void calendar_queue_burst_drain(benchmark::State& state) {
  burst_drain<CalendarQueue>(state);
}
BENCHMARK(event_queue_burst_drain)->Arg(10'000)->Arg(100'000);
BENCHMARK(calendar_queue_burst_drain)->Arg(10'000)->Arg(100'000);

// A policy that asks for the same few instants again and again (util-reactive asks, at every
// decision, for the instant each job being profiled will have been measured): k instants are
// pending among 10,000 job events, and every wake-up asked for is at one of them, so it only
// adds to that instant's count. One item = one push_wakeup.
void event_queue_repeated_wakeup(benchmark::State& state) {
  const auto k = static_cast<std::size_t>(state.range(0));
  auto q = filled<EventQueue>(10'000);
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

// The candidate is only worth measuring if it hands out the same events in the same order: 200,000
// pushes and pops in random interleaving (with bursts of equal times) on both queues, checked
// before any benchmark runs.
const bool kSameOrder = [] {
  const Draws& d = draws();
  EventQueue heap;
  CalendarQueue calendar;
  SimTime now = 0;
  for (std::size_t i = 0; i < 200'000; ++i) {
    const std::size_t r = i & (kRing - 1);
    const bool pop = !heap.empty() && (d.delay[r] & 3) == 0;
    if (pop) {
      const dlsim::Event a = heap.pop();
      const dlsim::Event b = calendar.pop();
      if (a.time != b.time || a.kind != b.kind || a.subject != b.subject) {
        std::fprintf(stderr, "calendar queue out of order at operation %zu\n", i);
        std::abort();
      }
      now = a.time;
      continue;
    }
    const SimTime at = now + ((d.delay[r] & 7) == 0 ? 0 : d.delay[r] / 1000);
    heap.push(at, d.kind[r], static_cast<std::uint32_t>(i));
    calendar.push(at, d.kind[r], static_cast<std::uint32_t>(i));
  }
  return true;
}();

} // namespace
