// HeldRuns (the holders of a priority order handed to PriorityPass as runs) and HolderSet,
// against plain containers on random inputs: the walk must give every job once, in key order,
// with each run's devices summed and each run as long as it can be (up to the next waiting job).
#include "policies/held_runs.h"
#include "policies/holder_set.h"

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>
#include <vector>

using namespace dlsim;

TEST_CASE("HeldRuns walks holders and waiting jobs merged by key, holders as maximal runs",
          "[held_runs]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    // Keys 0..n-1, job id = key * 3 + 1 (so that a job id is not its key).
    const int n = std::uniform_int_distribution<int>(0, 60)(rng);
    HeldRuns<int> held;
    std::set<int> waiting;
    std::map<int, std::uint32_t> holder_devices; // key -> devices, the plain model
    for (int k = 0; k < n; ++k) {
      if (rng() % 2 == 0) {
        waiting.insert(k);
      } else {
        const auto devices = static_cast<std::uint32_t>(1 + rng() % 8);
        held.insert(k, static_cast<JobId>(k * 3 + 1), devices);
        holder_devices[k] = devices;
      }
    }
    // Some holders leave and come back under new keys, as a policy rekeys them.
    for (int change = 0; change < n / 4; ++change) {
      if (holder_devices.empty()) break;
      auto it = holder_devices.begin();
      std::advance(it, static_cast<long>(rng() % holder_devices.size()));
      const int old_key = it->first;
      const std::uint32_t devices = it->second;
      CHECK(held.erase(old_key));
      holder_devices.erase(it);
      // A key no holder has (a waiting job's, or one just removed) changes nothing.
      CHECK_FALSE(held.erase(old_key));
      const int new_key = n + change; // past every key so far: the back of the order
      held.insert(new_key, static_cast<JobId>(new_key * 3 + 1), devices);
      holder_devices[new_key] = devices;
    }
    REQUIRE(held.size() == holder_devices.size());
    if (!waiting.empty()) CHECK_FALSE(held.erase(*waiting.begin()));
    REQUIRE(held.size() == holder_devices.size());

    // The plain walk: every key in order, each a holder or a waiting job.
    std::vector<int> all(waiting.begin(), waiting.end());
    for (const auto& [k, d] : holder_devices)
      all.push_back(k);
    std::sort(all.begin(), all.end());

    PriorityWalk walk = held.walk(waiting, [](int k) { return static_cast<JobId>(k * 3 + 1); });
    std::vector<JobId> got;
    bool last_was_run = false;
    WalkItem item;
    while (walk(item)) {
      if (item.run.empty()) {
        got.push_back(item.job);
        last_was_run = false;
      } else {
        // Two runs in a row would mean a run stopped short of the next waiting job.
        CHECK_FALSE(last_was_run);
        std::uint64_t sum = 0;
        // run_prefix: each job's devices as differences of prefix sums.
        REQUIRE(item.run_prefix.size() == item.run.size() + 1);
        for (std::size_t i = 0; i < item.run.size(); ++i) {
          const JobId j = item.run[i];
          const int k = static_cast<int>((j - 1) / 3);
          REQUIRE(holder_devices.count(k) == 1);
          sum += holder_devices[k];
          CHECK(item.run_prefix[i + 1] - item.run_prefix[i] == holder_devices[k]);
          got.push_back(j);
        }
        CHECK(item.run_devices == sum);
        CHECK(item.run_prefix.back() - item.run_prefix.front() == sum);
        last_was_run = true;
      }
      item = WalkItem{};
    }
    REQUIRE(got.size() == all.size());
    for (std::size_t i = 0; i < all.size(); ++i)
      CHECK(got[i] == static_cast<JobId>(all[i] * 3 + 1));
  }
}

TEST_CASE("HeldRuns: one run per stretch of holders between waiting jobs", "[held_runs]") {
  // Order: h0 h1 w2 h3 w4 w5 h6 h7 h8: runs {h0,h1} {h3} {h6,h7,h8}, devices 1+2, 4, 1+1+1.
  HeldRuns<int> held;
  held.insert(0, 100, 1);
  held.insert(1, 101, 2);
  held.insert(3, 103, 4);
  held.insert(6, 106, 1);
  held.insert(7, 107, 1);
  held.insert(8, 108, 1);
  const std::set<int> waiting{2, 4, 5};
  PriorityWalk walk = held.walk(waiting, [](int k) { return static_cast<JobId>(200 + k); });
  std::vector<std::pair<std::size_t, std::uint64_t>> runs; // (jobs, devices); (0, job) = single
  WalkItem item;
  while (walk(item)) {
    runs.emplace_back(item.run.size(), item.run.empty() ? item.job : item.run_devices);
    item = WalkItem{};
  }
  const std::vector<std::pair<std::size_t, std::uint64_t>> want{{2, 3},   {0, 202}, {1, 4},
                                                                {0, 204}, {0, 205}, {3, 3}};
  CHECK(runs == want);
}

TEST_CASE(
    "HeldRuns::walk_offered passes over the waiting keys not offered, runs merged across them",
    "[held_runs]") {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    // Keys 0..n-1: a holder or a waiting job; a waiting job is offered when its key is even.
    const int n = std::uniform_int_distribution<int>(0, 60)(rng);
    HeldRuns<int> held;
    std::set<int> waiting;
    std::map<int, std::uint32_t> holder_devices;
    for (int k = 0; k < n; ++k) {
      if (rng() % 3 == 0) {
        const auto devices = static_cast<std::uint32_t>(1 + rng() % 8);
        held.insert(k, static_cast<JobId>(1000 + k), devices);
        holder_devices[k] = devices;
      } else {
        waiting.insert(k);
      }
    }
    auto offered = [](int k) { return k % 2 == 0; };
    std::vector<int> offered_keys; // the plain walk: every holder and offered waiting key
    for (int k = 0; k < n; ++k) {
      if (holder_devices.count(k) || (waiting.count(k) && offered(k))) offered_keys.push_back(k);
    }
    PriorityWalk walk = held.walk_offered(
        waiting, [](int k) { return static_cast<JobId>(2000 + k); }, offered);
    std::vector<int> got;
    bool last_was_run = false;
    WalkItem item;
    while (walk(item)) {
      if (item.run.empty()) {
        REQUIRE(item.job >= 2000);
        got.push_back(static_cast<int>(item.job) - 2000);
        last_was_run = false;
      } else {
        // Runs reach the next offered waiting job: never two in a row.
        CHECK_FALSE(last_was_run);
        std::uint64_t sum = 0;
        for (JobId j : item.run) {
          got.push_back(static_cast<int>(j) - 1000);
          sum += holder_devices.at(static_cast<int>(j) - 1000);
        }
        CHECK(item.run_devices == sum);
        last_was_run = true;
      }
      item = WalkItem{};
    }
    CHECK(got == offered_keys);
  }
}

TEST_CASE("HolderSet answers as a std::set of job ids", "[held_runs]") {
  std::mt19937 rng(11);
  HolderSet set;
  std::set<JobId> plain;
  for (int op = 0; op < 5000; ++op) {
    const auto j = static_cast<JobId>(rng() % 300);
    if (rng() % 3 == 0) {
      CHECK(set.erase(j) == plain.erase(j));
    } else {
      CHECK(set.insert(j) == plain.insert(j).second);
    }
    CHECK(set.count(j) == plain.count(j));
    CHECK(set.size() == plain.size());
  }
  CHECK(std::vector<JobId>(set.begin(), set.end()) ==
        std::vector<JobId>(plain.begin(), plain.end()));
  CHECK(set.count(100000) == 0); // beyond every id it has seen
}

TEST_CASE("HolderSet lists its ids in order through phases of many erases", "[held_runs]") {
  // Removed ids stay in the vector until they outnumber the holders: phases that mostly add,
  // then mostly remove, then add back ids still listed, with the order checked as they go.
  std::mt19937 rng(13);
  HolderSet set;
  std::set<JobId> plain;
  for (int phase = 0; phase < 30; ++phase) {
    const unsigned erase_per_8 = phase % 3 == 1 ? 7 : 2;
    for (int op = 0; op < 800; ++op) {
      const auto j = static_cast<JobId>(rng() % 2000);
      if (rng() % 8 < erase_per_8) {
        CHECK(set.erase(j) == plain.erase(j));
      } else {
        CHECK(set.insert(j) == plain.insert(j).second);
      }
      REQUIRE(set.size() == plain.size());
      if (op % 97 == 0) {
        REQUIRE(std::vector<JobId>(set.begin(), set.end()) ==
                std::vector<JobId>(plain.begin(), plain.end()));
      }
    }
    CHECK(set.empty() == plain.empty());
  }
}

TEST_CASE("HeldRuns stays the set of holders through long runs of inserts and erases",
          "[held_runs]") {
  // Random keys added and removed many times between walks, so that the changes kept aside
  // are merged both by a walk and when they outgrow their bound, and keys come back after
  // being removed (in the sorted entries and among the added ones).
  std::mt19937 rng(19);
  for (int trial = 0; trial < 40; ++trial) {
    const int key_space = std::uniform_int_distribution<int>(1, 600)(rng);
    HeldRuns<int> held;
    std::map<int, std::uint32_t> model; // key -> devices
    std::set<int> waiting;
    for (int step = 0; step < 3000; ++step) {
      const int k = static_cast<int>(rng() % static_cast<unsigned>(key_space));
      if (model.count(k) != 0) {
        CHECK(held.erase(k));
        model.erase(k);
        CHECK_FALSE(held.erase(k));
      } else if (waiting.count(k) == 0) {
        if (rng() % 5 == 0) {
          waiting.insert(k);
          continue;
        }
        const auto devices = static_cast<std::uint32_t>(1 + rng() % 8);
        held.insert(k, static_cast<JobId>(k * 3 + 1), devices);
        model[k] = devices;
      }
      REQUIRE(held.size() == model.size());
      if (rng() % 50 != 0) continue;
      // A walk: every key in order, holders as runs with their devices summed.
      std::vector<int> all(waiting.begin(), waiting.end());
      for (const auto& [key, d] : model)
        all.push_back(key);
      std::sort(all.begin(), all.end());
      PriorityWalk walk =
          held.walk(waiting, [](int key) { return static_cast<JobId>(key * 3 + 1); });
      std::vector<JobId> got;
      WalkItem item;
      while (walk(item)) {
        if (item.run.empty()) {
          got.push_back(item.job);
        } else {
          std::uint64_t sum = 0;
          for (JobId j : item.run) {
            const int key = static_cast<int>((j - 1) / 3);
            REQUIRE(model.count(key) == 1);
            sum += model[key];
            got.push_back(j);
          }
          CHECK(item.run_devices == sum);
        }
        item = WalkItem{};
      }
      REQUIRE(got.size() == all.size());
      for (std::size_t i = 0; i < all.size(); ++i)
        CHECK(got[i] == static_cast<JobId>(all[i] * 3 + 1));
    }
  }
}
