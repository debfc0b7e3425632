// The event queue's total order and the seeded random streams.
#include "sim/engine/event_queue.h"
#include "sim/engine/rng.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace dlsim;

TEST_CASE("events pop in (time, band, insertion) order", "[engine]") {
  EventQueue q;
  q.push(20, EventKind::kArrival, 1);
  q.push(10, EventKind::kWakeup, 2);
  q.push(10, EventKind::kArrival, 3);
  q.push(10, EventKind::kJobFinish, 4);
  q.push(10, EventKind::kArrival, 5); // same time and band as 3: after it, by insertion
  q.push(5, EventKind::kWakeup, 6);
  std::vector<std::uint32_t> order;
  while (!q.empty())
    order.push_back(q.pop().subject);
  // t=5 first; at t=10 finish (band 0) < arrivals (band 2, in insertion order) < wakeup (3).
  CHECK(order == std::vector<std::uint32_t>{6, 4, 3, 5, 2, 1});
}

TEST_CASE("the heap stays ordered under many random pushes and pops", "[engine]") {
  EventQueue q;
  Rng rng(7);
  std::vector<SimTime> popped;
  for (int round = 0; round < 2000; ++round) {
    q.push(static_cast<SimTime>(rng.below(1000)), EventKind::kArrival, 0);
    if (round % 3 == 0) popped.push_back(q.pop().time);
  }
  // Pops interleaved with pushes need not be sorted overall; draining must be.
  std::vector<SimTime> drained;
  while (!q.empty())
    drained.push_back(q.pop().time);
  CHECK(std::is_sorted(drained.begin(), drained.end()));
  CHECK(drained.size() + popped.size() == 2000);
}

TEST_CASE("random streams are pure functions of (seed, name)", "[engine]") {
  Rng a = Rng::stream(42, "gen-trace.arrivals");
  Rng b = Rng::stream(42, "gen-trace.arrivals");
  Rng c = Rng::stream(42, "gen-trace.durations");
  Rng d = Rng::stream(43, "gen-trace.arrivals");
  std::uint64_t x = a.next_u64();
  CHECK(x == b.next_u64());
  CHECK(x != c.next_u64());
  CHECK(x != d.next_u64());
}

TEST_CASE("distributions have the moments they should", "[engine]") {
  Rng rng(1);
  const int n = 200000;
  double sum_exp = 0;
  double sum_log = 0;
  double sum_log2 = 0;
  std::vector<int> picks(3, 0);
  const double w[] = {1, 2, 7};
  for (int i = 0; i < n; ++i) {
    sum_exp += rng.exponential(0.5);
    double l = std::log(rng.lognormal(2.0, 0.5));
    sum_log += l;
    sum_log2 += l * l;
    ++picks[rng.weighted(w)];
    std::uint64_t k = rng.below(10);
    REQUIRE(k < 10);
  }
  // Exponential(rate 0.5): mean 2. Standard error 2/sqrt(2e5) = 0.0045, so 0.03 is > 6 sigma.
  CHECK(sum_exp / n == Approx(2.0).margin(0.03));
  // log of a log-normal(2, 0.5) is normal(2, 0.5).
  double mean = sum_log / n;
  CHECK(mean == Approx(2.0).margin(0.01));
  CHECK(std::sqrt(sum_log2 / n - mean * mean) == Approx(0.5).margin(0.01));
  // Weights 1:2:7 give 10%, 20%, 70%.
  CHECK(picks[0] / double(n) == Approx(0.1).margin(0.01));
  CHECK(picks[2] / double(n) == Approx(0.7).margin(0.01));
}

TEST_CASE("time converts to microseconds exactly and rounds up when asked", "[engine]") {
  CHECK(from_seconds(1.5) == 1'500'000);
  CHECK(from_seconds_ceil(0.0000011) == 2);
  CHECK(to_seconds(2'500'000) == 2.5);
}
