// Gandiva's walk over the waiting jobs by kind (policies/gandiva/waiting_kinds.h) against the walk
// it replaces: every waiting job in arrival order, passing over the kinds that found nothing since
// the last placement. Random queues, random verdicts, and the job at hand taken out of the queue
// when it is placed, as place_waiting does.
#include "policies/gandiva/waiting_kinds.h"

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>
#include <vector>

using namespace dlsim;
using namespace dlsim::gandiva;

namespace {

JobKind kind_number(std::uint32_t k) {
  return {1 + k % 3, 1, -1, 0, 0, k / 3};
}

} // namespace

TEST_CASE("gandiva waiting kinds walk as the arrival-order walk that passes over failed kinds",
          "[gandiva][gandiva-index]") {
  std::mt19937 rng(20261129);
  std::size_t visits = 0;
  std::size_t passes = 0;
  for (int instance = 0; instance < 300; ++instance) {
    const std::uint32_t kinds = 1 + rng() % 7;
    std::set<WaitingKinds::Entry> plain;
    std::map<JobId, std::uint32_t> kind_of_job;
    WaitingKinds index;
    std::uint64_t seq = 0;
    for (int decision = 0; decision < 20; ++decision) {
      // Arrivals between decisions.
      const int arrivals = static_cast<int>(rng() % 30);
      for (int a = 0; a < arrivals; ++a) {
        const auto j = static_cast<JobId>(seq);
        const std::uint32_t k = rng() % kinds;
        kind_of_job[j] = k;
        plain.emplace(seq, j);
        index.add(kind_number(k), {seq, j});
        ++seq;
      }
      // The walk of one decision, the plain one and the kept one side by side.
      const std::uint32_t place_one_in = 2 + rng() % 8;
      std::set<std::uint32_t> nothing_for;
      WaitingKinds::Walk walk(index);
      auto it = plain.begin();
      while (true) {
        while (it != plain.end() && nothing_for.count(kind_of_job[it->second]))
          ++it;
        const std::optional<WaitingKinds::Entry> got = walk.next();
        if (it == plain.end()) {
          REQUIRE(!got);
          break;
        }
        REQUIRE(got);
        REQUIRE(*got == *it);
        ++visits;
        const WaitingKinds::Entry entry = *it;
        ++it;
        const std::uint32_t k = kind_of_job[entry.second];
        const std::uint32_t verdict = rng() % place_one_in;
        if (verdict == 0) {
          // Placed: it leaves the queue, and no kind is passed over any more.
          plain.erase(entry);
          index.erase(kind_number(k), entry);
          nothing_for.clear();
          walk.placed();
        } else if (verdict == 1) {
          // Not parked: passed over without a verdict on its kind.
        } else {
          nothing_for.insert(k);
          walk.nothing_for_last();
          ++passes;
        }
      }
    }
  }
  CHECK(visits > 10000);
  CHECK(passes > 1000);
}
