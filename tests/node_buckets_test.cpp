// NodeBuckets (the placement model's changed nodes by free devices) against a std::set of the
// same pairs on random inserts and erases (clear() between trials): the same pairs in the same
// order, and find_from stopping at the first pair a predicate accepts, as a walk from
// std::set::lower_bound would.
#include "policies/node_buckets.h"

#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <utility>
#include <vector>

using namespace dlsim;

namespace {

using Pairs = std::vector<std::pair<std::uint64_t, NodeId>>;

Pairs listed(const NodeBuckets& b) {
  Pairs out;
  b.for_each([&](std::uint64_t k, NodeId n) { out.emplace_back(k, n); });
  return out;
}

} // namespace

TEST_CASE("NodeBuckets keeps (count, node) pairs in the order of a std::set", "[node_buckets]") {
  std::mt19937 rng(11);
  NodeBuckets buckets;
  for (int trial = 0; trial < 300; ++trial) {
    // A node appears at most once, as in the placement model (one count per node and type).
    // Some trials spread few nodes over thousands of ids (many words of bits, most empty).
    const auto nodes = static_cast<NodeId>(trial % 3 == 0 ? 1 + rng() % 9000 : 1 + rng() % 40);
    const std::uint64_t max_count = 1 + rng() % 9;
    std::set<std::pair<std::uint64_t, NodeId>> plain;
    std::vector<std::int64_t> count_of(nodes, -1); // -1: not in the set
    buckets.clear();
    for (int step = 0; step < 200; ++step) {
      const auto n = static_cast<NodeId>(rng() % nodes);
      if (count_of[n] >= 0) {
        const auto old = static_cast<std::uint64_t>(count_of[n]);
        buckets.erase(old, n);
        plain.erase({old, n});
        count_of[n] = -1;
        if (rng() % 3 == 0) continue; // left out
      }
      const std::uint64_t k = rng() % (max_count + 1);
      buckets.insert(k, n);
      plain.insert({k, n});
      count_of[n] = static_cast<std::int64_t>(k);
    }
    REQUIRE(buckets.size() == plain.size());
    CHECK(listed(buckets) == Pairs(plain.begin(), plain.end()));
    // The first pair from `from` on whose node is odd (a fit test), as lower_bound finds it.
    for (std::uint64_t from = 0; from <= max_count + 1; ++from) {
      std::pair<std::uint64_t, NodeId> expected{0, 0};
      bool any = false;
      for (auto it = plain.lower_bound({from, 0}); it != plain.end(); ++it) {
        if (it->second % 2 == 1) {
          expected = *it;
          any = true;
          break;
        }
      }
      std::pair<std::uint64_t, NodeId> got{0, 0};
      bool found = false;
      std::size_t calls = 0;
      buckets.find_from(from, [&](std::uint64_t k, NodeId n) {
        ++calls;
        if (n % 2 == 0) return false;
        got = {k, n};
        found = true;
        return true;
      });
      CHECK(found == any);
      CHECK(got == expected);
      // It stops at the first accepted pair: one call per pair up to it.
      std::size_t before = 0;
      for (auto it = plain.lower_bound({from, 0}); it != plain.end() && !(any && *it == expected);
           ++it)
        ++before;
      CHECK(calls == (any ? before + 1 : before));
    }
  }
}
