// FIFO-backfill's running jobs by estimated end (policies/estimated_ends.h): a walk visits the
// jobs with an end in the order of the pairs (max(end, now), job) sorted, the order the
// reservation used to sort afresh at every decision, while jobs start and end between walks and
// `now` moves on.
#include "policies/estimated_ends.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <utility>
#include <vector>

using dlsim::EstimatedEnds;
using dlsim::JobId;
using dlsim::kNever;
using dlsim::SimTime;

namespace {

using Visits = std::vector<std::pair<SimTime, JobId>>;

// Every visit of a walk that stops after `limit` jobs.
Visits walk(EstimatedEnds& ends, SimTime now, std::size_t limit) {
  Visits seen;
  ends.walk(now, [&](SimTime end, JobId j) {
    if (seen.size() == limit) return false;
    seen.emplace_back(end, j);
    return true;
  });
  return seen;
}

} // namespace

TEST_CASE("estimated ends walk overdue jobs as now, by id, then the others by end",
          "[fifo-backfill]") {
  EstimatedEnds ends;
  ends.insert(4, 50);
  ends.insert(2, 30);
  ends.insert(7, 30);
  ends.insert(1, kNever); // no estimate: never walked
  ends.insert(3, 10);
  // At 20, job 3 (end 10) is overdue and reads as 20; then 2 and 7 (30, by id), then 4.
  CHECK(walk(ends, 20, 10) == Visits{{20, 3}, {30, 2}, {30, 7}, {50, 4}});
  // At 40, jobs 2, 3 and 7 read as 40, in id order, before job 4.
  CHECK(walk(ends, 40, 10) == Visits{{40, 2}, {40, 3}, {40, 7}, {50, 4}});
  // A walk stops when its visit says so.
  CHECK(walk(ends, 40, 2) == Visits{{40, 2}, {40, 3}});
  // Overdue and ahead jobs leave; a job inserted again is moved.
  ends.erase(3);
  ends.erase(4);
  ends.insert(2, 90);
  CHECK(walk(ends, 45, 10) == Visits{{45, 7}, {90, 2}});
}

TEST_CASE("estimated ends agree with a sort of every running job on random runs",
          "[fifo-backfill]") {
  std::mt19937 rng(11);
  for (int round = 0; round < 100; ++round) {
    EstimatedEnds ends;
    std::map<JobId, SimTime> running; // the plain computation's state
    SimTime now = 0;
    for (int step = 0; step < 300; ++step) {
      const auto j = static_cast<JobId>(rng() % 40);
      switch (rng() % 4) {
      case 0:
      case 1: { // a start (or restart) with an end near now, maybe none
        const SimTime end = rng() % 8 == 0 ? kNever : now + static_cast<SimTime>(rng() % 50);
        ends.insert(j, end);
        running[j] = end;
        break;
      }
      case 2: // an end
        ends.erase(j);
        running.erase(j);
        break;
      default: { // time passes, then a walk of a random length
        now += static_cast<SimTime>(rng() % 20);
        Visits plain;
        for (const auto& [job, end] : running) {
          if (end != kNever) plain.emplace_back(std::max(end, now), job);
        }
        std::sort(plain.begin(), plain.end());
        const std::size_t limit = rng() % (plain.size() + 2);
        plain.resize(std::min(limit, plain.size()));
        REQUIRE(walk(ends, now, limit) == plain);
      }
      }
    }
  }
}
