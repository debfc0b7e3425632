// BlockedHeldRuns (the holders of a priority order in sorted blocks, handed to PriorityPass as
// runs) against a plain std::map on random inputs large enough to split and join its blocks:
// a walk must give every holder and every waiting job handed once, in key order, each run with
// its devices summed and as prefix sums, and no run may stop short of the next waiting job
// except at the end of a block.
#include "policies/blocked_held_runs.h"

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>
#include <vector>

using namespace dlsim;

namespace {

JobId job_of_key(int k) {
  return static_cast<JobId>(k * 3 + 1);
}

// Walks `held` merged with `waiting` (passing over the waiting keys skip(k) accepts) and checks
// the walk against the plain model.
void check_walk(BlockedHeldRuns<int>& held, const std::map<int, std::uint32_t>& model,
                const std::set<int>& waiting, bool (*skip)(int)) {
  std::vector<int> want;
  for (int k : waiting) {
    if (!skip(k)) want.push_back(k);
  }
  for (const auto& [k, d] : model)
    want.push_back(k);
  std::sort(want.begin(), want.end());

  auto advance = [&waiting, skip](std::set<int>::const_iterator it, const WalkItem&) {
    while (it != waiting.end() && skip(*it))
      ++it;
    return it;
  };
  PriorityWalk walk = held.walk_with(waiting, job_of_key, advance);
  std::vector<JobId> got;
  std::size_t runs_in_a_row = 0; // runs since the last waiting job
  std::size_t most_in_a_row = 0;
  WalkItem item;
  while (walk(item)) {
    if (item.run.empty()) {
      got.push_back(item.job);
      runs_in_a_row = 0;
    } else {
      REQUIRE(item.run_prefix.size() == item.run.size() + 1);
      std::uint64_t sum = 0;
      for (std::size_t i = 0; i < item.run.size(); ++i) {
        const int k = static_cast<int>((item.run[i] - 1) / 3);
        REQUIRE(model.count(k) == 1);
        sum += model.at(k);
        CHECK(item.run_prefix[i + 1] - item.run_prefix[i] == model.at(k));
        got.push_back(item.run[i]);
      }
      CHECK(item.run_devices == sum);
      most_in_a_row = std::max(most_in_a_row, ++runs_in_a_row);
    }
    item = WalkItem{};
  }
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    CHECK(got[i] == job_of_key(want[i]));
  // Runs in a row only where one block ends and the next begins.
  CHECK(most_in_a_row <= std::max<std::size_t>(held.blocks(), 1));
}

bool skip_none(int) {
  return false;
}
bool skip_odd(int k) {
  return k % 2 != 0;
}

} // namespace

TEST_CASE("BlockedHeldRuns walks holders and waiting jobs by key through inserts and erases",
          "[blocked_held_runs]") {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 12; ++trial) {
    // Key spaces from a few keys (one block) to thousands (many blocks, split and joined).
    const int key_space = std::uniform_int_distribution<int>(1, 6000)(rng);
    // Phases that mostly insert, then mostly erase, so that blocks grow, split, shrink and join.
    BlockedHeldRuns<int> held;
    std::map<int, std::uint32_t> model; // key -> devices
    std::set<int> waiting;
    for (int phase = 0; phase < 6; ++phase) {
      const unsigned erase_per_8 = phase % 2 == 1 ? 6 : 1;
      for (int step = 0; step < 3000; ++step) {
        const int k = static_cast<int>(rng() % static_cast<unsigned>(key_space));
        if (model.count(k) != 0) {
          if (rng() % 8 >= erase_per_8) continue;
          CHECK(held.erase(k));
          model.erase(k);
          CHECK_FALSE(held.erase(k));
        } else if (waiting.count(k) != 0) {
          CHECK_FALSE(held.erase(k)); // a waiting key is not a holder's
          if (rng() % 4 == 0) waiting.erase(k);
        } else if (rng() % 5 == 0) {
          waiting.insert(k);
        } else {
          const auto devices = static_cast<std::uint32_t>(1 + rng() % 8);
          held.insert(k, job_of_key(k), devices);
          model[k] = devices;
        }
        REQUIRE(held.size() == model.size());
        if (rng() % 400 == 0) check_walk(held, model, waiting, rng() % 2 ? skip_none : skip_odd);
      }
      check_walk(held, model, waiting, skip_none);
    }
    held.clear();
    model.clear();
    check_walk(held, model, waiting, skip_none);
  }
}

TEST_CASE("BlockedHeldRuns built in key order, as a ranking inserts it", "[blocked_held_runs]") {
  BlockedHeldRuns<int> held;
  std::map<int, std::uint32_t> model;
  for (int k = 0; k < 5000; k += 2) {
    held.insert(k, job_of_key(k), static_cast<std::uint32_t>(1 + k % 7));
    model[k] = static_cast<std::uint32_t>(1 + k % 7);
  }
  CHECK(held.blocks() > 1);
  // No waiting job: the holders in as few runs as there are blocks.
  check_walk(held, model, {}, skip_none);
  // Waiting jobs between them, some passed over.
  std::set<int> waiting;
  for (int k = 1; k < 5000; k += 10)
    waiting.insert(k);
  check_walk(held, model, waiting, skip_none);
  check_walk(held, model, waiting, skip_odd);
}
