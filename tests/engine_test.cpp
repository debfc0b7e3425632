// The event queue's total order and the seeded random streams.
#include "sim/engine/event_queue.h"
#include "sim/engine/rng.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

using namespace dlsim;

TEST_CASE("events pop in (time, band, insertion) order", "[engine]") {
  EventQueue q;
  q.push(20, EventKind::kArrival, 1);
  q.push_wakeup(10);
  q.push(10, EventKind::kArrival, 3);
  q.push(10, EventKind::kJobFinish, 4);
  q.push(10, EventKind::kArrival, 5); // same time and band as 3: after it, by insertion
  q.push_wakeup(5);
  q.push(10, EventKind::kActionDone, 7);
  std::vector<std::pair<SimTime, EventKind>> order;
  std::vector<std::uint32_t> subjects;
  while (!q.empty()) {
    Event e = q.pop();
    order.emplace_back(e.time, e.kind);
    if (e.kind != EventKind::kWakeup) subjects.push_back(e.subject);
  }
  // t=5 the wake-up first; at t=10 finish (band 0) < action done (1) < arrivals (band 2, in
  // insertion order: 3 then 5) < the wake-up (3); then the arrival at t=20.
  using K = EventKind;
  CHECK(order == std::vector<std::pair<SimTime, EventKind>>{{5, K::kWakeup},
                                                            {10, K::kJobFinish},
                                                            {10, K::kActionDone},
                                                            {10, K::kArrival},
                                                            {10, K::kArrival},
                                                            {10, K::kWakeup},
                                                            {20, K::kArrival}});
  CHECK(subjects == std::vector<std::uint32_t>{4, 7, 3, 5, 1});
}

TEST_CASE("the wake-ups of one instant share one entry that counts them", "[engine]") {
  EventQueue q;
  // Asked for: 3 at t=30, 1 at t=10, 2 at t=20, interleaved; a finish at t=20 too.
  q.push_wakeup(30);
  q.push_wakeup(20);
  q.push_wakeup(30);
  q.push(20, EventKind::kJobFinish, 9, 4);
  q.push_wakeup(10);
  q.push_wakeup(30);
  q.push_wakeup(20);
  // Entries: one per instant with wake-ups (10, 20, 30) plus the finish = 4, not 7.
  CHECK(q.size() == 4);
  CHECK(q.top().time == 10);
  CHECK(q.top().count == 1);
  Event e = q.pop();
  CHECK((e.time == 10 && e.kind == EventKind::kWakeup && e.count == 1));
  // At t=20 the finish (band 0) comes before the two wake-ups (band 3), whatever the push order.
  e = q.pop();
  CHECK((e.time == 20 && e.kind == EventKind::kJobFinish && e.subject == 9 && e.generation == 4 &&
         e.count == 1));
  e = q.pop();
  CHECK((e.time == 20 && e.kind == EventKind::kWakeup && e.count == 2));
  CHECK(q.top().count == 3);
  e = q.pop();
  CHECK((e.time == 30 && e.kind == EventKind::kWakeup && e.count == 3));
  CHECK(q.empty());
  // An instant whose wake-up entry was popped starts afresh: a count of 1, not 4.
  q.push_wakeup(30);
  CHECK(q.pop().count == 1);
  // push() with kWakeup is push_wakeup: it joins the entry and drops the subject.
  q.push(40, EventKind::kWakeup, 5);
  q.push_wakeup(40);
  CHECK(q.size() == 1);
  e = q.pop();
  CHECK((e.count == 2 && e.subject == 0));
}

TEST_CASE("a wake-up entry keeps its place among the wake-ups and events of other instants",
          "[engine]") {
  // Many wake-ups at a few instants, pushed in a scrambled order among finishes: the pops come
  // out by time, each instant's wake-ups once with their total, and the counts add up to what
  // was pushed. Instant k (k = 0..9, time 100 * k) gets k + 1 wake-ups per round, 10 rounds:
  // 10 * (k + 1) each, 10 * (1 + 2 + ... + 10) = 550 in all.
  EventQueue q;
  Rng rng(11);
  std::vector<SimTime> pushes;
  for (int round = 0; round < 10; ++round) {
    for (SimTime k = 0; k < 10; ++k) {
      for (SimTime n = 0; n <= k; ++n)
        pushes.push_back(100 * k);
    }
  }
  for (std::size_t i = pushes.size(); i > 1; --i)
    std::swap(pushes[i - 1], pushes[rng.below(i)]);
  std::uint32_t finish = 0;
  for (SimTime t : pushes) {
    q.push_wakeup(t);
    if (t % 300 == 0) q.push(t, EventKind::kJobFinish, finish++);
  }
  CHECK(q.size() == 10 + finish);
  std::uint64_t total = 0;
  SimTime last = -1;
  bool woke_at_last = false; // an instant's wake-up entry comes after all its finishes
  while (!q.empty()) {
    Event e = q.pop();
    CHECK(e.time >= last);
    CHECK_FALSE((e.time == last && woke_at_last));
    woke_at_last = e.time != last ? false : woke_at_last;
    last = e.time;
    if (e.kind != EventKind::kWakeup) continue;
    woke_at_last = true;
    CHECK(e.count == static_cast<std::uint64_t>(10 * (e.time / 100 + 1)));
    total += e.count;
  }
  CHECK(total == 550);
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

TEST_CASE("a sweep removes cancelled events and keeps the order of the others", "[engine]") {
  EventQueue q;
  // 70,000 finishes at times (i * 7919) mod 1000: 70 at each time, so ties by time are broken
  // by insertion order, which is i's order. Generation i mod 3; those of generation 1 are
  // cancelled: i = 1, 4, ..., 69,997, that is (69,997 - 1) / 3 + 1 = 23,333 of them.
  constexpr std::uint32_t kN = 70'000;
  for (std::uint32_t i = 0; i < kN; ++i)
    q.push(static_cast<SimTime>((std::uint64_t{i} * 7919) % 1000), EventKind::kJobFinish, i, i % 3);
  q.push_wakeup(500);
  q.push_wakeup(500);
  q.push_wakeup(2000);
  CHECK(q.size() == kN + 2); // 70,000 finishes + the entries of t=500 and t=2000
  CHECK(q.wants_sweep());    // 70,002 >= 65,536
  // The wake-up at t=2000 is cancelled too, to see that its count goes with it.
  q.sweep([](const Event& e) {
    return e.kind == EventKind::kWakeup ? e.time == 2000 : e.generation == 1;
  });
  CHECK(q.size() == kN - 23'333 + 1); // 46,667 finishes + t=500's wake-up entry
  CHECK_FALSE(q.wants_sweep());       // the next sweep waits for 2 * 46,668 entries
  q.push_wakeup(2000);                // a fresh entry: a count of 1, not 2
  // The expected order: by time, then the finishes (band 0) before t=500's wake-ups, then by i.
  std::vector<std::pair<SimTime, std::uint32_t>> expected;
  for (std::uint32_t i = 0; i < kN; ++i) {
    if (i % 3 != 1)
      expected.emplace_back(static_cast<SimTime>((std::uint64_t{i} * 7919) % 1000), i);
  }
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<SimTime, std::uint32_t>> popped;
  std::vector<std::pair<SimTime, std::uint64_t>> wakes;
  SimTime last_finish_at_500 = -1;
  while (!q.empty()) {
    Event e = q.pop();
    if (e.kind == EventKind::kWakeup) {
      wakes.emplace_back(e.time, e.count);
      continue;
    }
    if (e.time == 500) {
      last_finish_at_500 = e.time;
      CHECK(wakes.empty()); // no finish of t=500 after its wake-ups
    }
    popped.emplace_back(e.time, e.subject);
  }
  CHECK(last_finish_at_500 == 500);
  CHECK(popped == expected);
  CHECK(wakes == std::vector<std::pair<SimTime, std::uint64_t>>{{500, 2}, {2000, 1}});
}
