// FIFO-backfill's queue (policies/backfill_queue.h): the walk behind the front visits, in queue
// order, exactly the jobs a walk over the whole queue would not refuse for asking more devices
// than the limit, re-reading the limit after each start, and started jobs leave the queue.
#include "policies/backfill_queue.h"

#include <catch2/catch.hpp>

#include <random>
#include <vector>

using dlsim::BackfillQueue;
using dlsim::JobId;

TEST_CASE("backfill queue walks behind the front in queue order within the limit",
          "[fifo-backfill]") {
  BackfillQueue q;
  // Jobs 0..5 asking 8, 1, 4, 0 (a host task), 2, 1 devices.
  const std::vector<std::uint32_t> need = {8, 1, 4, 0, 2, 1};
  for (JobId j = 0; j < need.size(); ++j)
    q.push(j, need[j]);
  REQUIRE(q.front() == 0);

  // Limit 2: job 2 (4 devices) is stepped over; the front (job 0) is never visited.
  std::vector<JobId> seen;
  q.walk_behind_front([] { return 2U; },
                      [&](JobId j) {
                        seen.push_back(j);
                        return false;
                      });
  CHECK(seen == std::vector<JobId>{1, 3, 4, 5});
  CHECK(q.size() == 6);

  // Starting job 1 (1 device) leaves 1 free: job 4 (2 devices) is then out of reach, job 3 (a
  // host task, 0) and job 5 (1) are not.
  std::uint32_t free = 2;
  seen.clear();
  q.walk_behind_front([&] { return free; },
                      [&](JobId j) {
                        seen.push_back(j);
                        if (j != 1) return false;
                        free -= need[j];
                        return true;
                      });
  CHECK(seen == std::vector<JobId>{1, 3, 5});
  CHECK(q.size() == 5);

  // A job that rejoins (a failure) goes to the back; the front leaves by pop_front.
  q.pop_front();
  CHECK(q.front() == 2);
  q.push(0, 8);
  seen.clear();
  q.walk_behind_front([] { return 8U; },
                      [&](JobId j) {
                        seen.push_back(j);
                        return false;
                      });
  CHECK(seen == std::vector<JobId>{3, 4, 5, 0});
}

TEST_CASE("backfill queue agrees with a walk over a plain list on random queues",
          "[fifo-backfill]") {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    BackfillQueue q;
    std::vector<std::pair<JobId, std::uint32_t>> plain; // (job, need) in queue order
    const auto n = static_cast<JobId>(2 + rng() % 30);
    for (JobId j = 0; j < n; ++j) {
      const auto k = static_cast<std::uint32_t>(rng() % 6);
      q.push(j, k);
      plain.emplace_back(j, k);
    }
    std::uint32_t free_a = rng() % 8;
    std::uint32_t free_b = free_a;
    // A job is started when its need fits and its id is even; it takes its need.
    std::vector<JobId> walked;
    q.walk_behind_front([&] { return free_a; },
                        [&](JobId j) {
                          walked.push_back(j);
                          const std::uint32_t k = plain[j].second; // ids are positions in `plain`
                          if (j % 2 != 0 || k > free_a) return false;
                          free_a -= k;
                          return true;
                        });
    std::vector<JobId> expected;
    std::vector<std::pair<JobId, std::uint32_t>> left = {plain.front()};
    for (std::size_t i = 1; i < plain.size(); ++i) {
      const auto [j, k] = plain[i];
      if (k > free_b) {
        left.push_back(plain[i]);
        continue;
      }
      expected.push_back(j);
      if (j % 2 == 0) {
        free_b -= k;
      } else {
        left.push_back(plain[i]);
      }
    }
    REQUIRE(walked == expected);
    REQUIRE(q.size() == left.size());
  }
}

TEST_CASE("backfill queue walks the whole queue, the front included, as a plain list would",
          "[fifo-backfill]") {
  std::mt19937 rng(13);
  for (int round = 0; round < 200; ++round) {
    BackfillQueue q;
    std::vector<std::uint32_t> need;
    const auto n = static_cast<JobId>(rng() % 30);
    for (JobId j = 0; j < n; ++j) {
      need.push_back(static_cast<std::uint32_t>(rng() % 6));
      q.push(j, need.back());
    }
    std::uint32_t free = rng() % 10;
    // Plain: every job in order, started when it fits and its id is not a multiple of 3.
    std::vector<JobId> expect_seen, expect_left;
    std::uint32_t left = free;
    for (JobId j = 0; j < n; ++j) {
      if (need[j] > left) {
        expect_left.push_back(j);
        continue;
      }
      expect_seen.push_back(j);
      if (j % 3 != 0) {
        left -= need[j];
      } else {
        expect_left.push_back(j);
      }
    }
    std::vector<JobId> seen;
    q.walk([&] { return free; },
           [&](JobId j) {
             seen.push_back(j);
             if (j % 3 == 0) return false;
             free -= need[j];
             return true;
           });
    REQUIRE(seen == expect_seen);
    std::vector<JobId> rest;
    while (!q.empty()) {
      rest.push_back(q.front());
      q.pop_front();
    }
    REQUIRE(rest == expect_left);
  }
}
