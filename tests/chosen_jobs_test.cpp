// ChosenJobs (a PriorityPass decision's choice, runs kept as spans) against a plain vector on
// random inputs: the jobs in order, their count, truncation back to an earlier entry, and the
// holders left out between the chosen stretches of the vector that lists them all.
#include "policies/chosen_jobs.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

using namespace dlsim;

TEST_CASE("ChosenJobs lists its jobs and the ones left out between its stretches",
          "[chosen_jobs]") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    // The holders in the walk's order (ids not in order), and waiting jobs with other ids.
    const auto n = std::uniform_int_distribution<std::size_t>(0, 80)(rng);
    std::vector<JobId> whole(n);
    for (std::size_t i = 0; i < n; ++i)
      whole[i] = static_cast<JobId>(1000 + (i * 37) % 101);
    ChosenJobs chosen;
    std::vector<JobId> plain;              // every chosen job, in order
    std::vector<std::size_t> plain_counts; // plain.size() before each entry
    std::set<std::size_t> taken;           // positions of whole in a chosen stretch
    std::vector<std::vector<std::size_t>> taken_by_entry;
    std::size_t at = 0; // the walk's position in whole
    JobId next_waiting = 1;
    for (int step = 0; step < 60; ++step) {
      const unsigned what = rng() % 10;
      if (what < 3) { // a waiting job
        plain_counts.push_back(plain.size());
        taken_by_entry.emplace_back();
        chosen.push(next_waiting);
        plain.push_back(next_waiting++);
      } else if (what < 8 && at < n) { // a stretch of whole, after a gap
        at += rng() % 3;
        if (at >= n) continue;
        const std::size_t len = 1 + rng() % std::min<std::size_t>(6, n - at);
        plain_counts.push_back(plain.size());
        taken_by_entry.emplace_back();
        chosen.push_run(std::span<const JobId>(whole).subspan(at, len));
        for (std::size_t i = at; i < at + len; ++i) {
          plain.push_back(whole[i]);
          taken_by_entry.back().push_back(i);
        }
        at += len;
      } else if (what == 8 && chosen.picks() > 0) { // back to an earlier entry
        const std::size_t keep = rng() % (chosen.picks() + 1);
        chosen.truncate(keep);
        if (keep < plain_counts.size()) {
          plain.resize(plain_counts[keep]);
          plain_counts.resize(keep);
          taken_by_entry.resize(keep);
        }
        // The walk goes on after the last stretch kept.
        at = 0;
        for (const auto& e : taken_by_entry) {
          if (!e.empty()) at = e.back() + 1;
        }
      }
      REQUIRE(chosen.size() == plain.size());
      REQUIRE(chosen.picks() == plain_counts.size());
      CHECK(chosen.list() == plain);
      std::vector<JobId> each;
      chosen.for_each(0, chosen.picks(), [&](JobId j) { each.push_back(j); });
      CHECK(each == plain);
      taken.clear();
      for (const auto& e : taken_by_entry)
        taken.insert(e.begin(), e.end());
      std::vector<JobId> expected;
      for (std::size_t i = 0; i < n; ++i) {
        if (taken.count(i) == 0) expected.push_back(whole[i]);
      }
      std::vector<JobId> left_out{7}; // appended to
      chosen.left_out_of(whole, left_out);
      expected.insert(expected.begin(), 7);
      CHECK(left_out == expected);
      JobId first_single = 0;
      chosen.find_single([&](JobId j) {
        first_single = j;
        return true;
      });
      JobId plain_first = 0;
      for (JobId j : plain) {
        if (j < 1000) {
          plain_first = j;
          break;
        }
      }
      CHECK(first_single == plain_first);
    }
  }
}
