// WaitingIndex (the waiting jobs of a priority order, also by the devices each asks for)
// against a plain scan of a std::set on random inserts and erases: first_within must find the
// first key from a place on whose job asks for at most a bound, as stepping over each would.
#include "policies/waiting_index.h"

#include <catch2/catch.hpp>

#include <iterator>
#include <map>
#include <random>
#include <set>

using namespace dlsim;

TEST_CASE("WaitingIndex::first_within finds what a plain scan finds", "[waiting_index]") {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    WaitingIndex<int> index;
    std::map<int, std::uint32_t> need; // key -> devices, the plain model
    const int keys = 1 + static_cast<int>(rng() % 80);
    for (int step = 0; step < 150; ++step) {
      const int k = static_cast<int>(rng() % static_cast<unsigned>(keys));
      if (auto it = need.find(k); it != need.end()) {
        CHECK(index.erase(k, it->second) == 1);
        need.erase(it);
        CHECK(index.erase(k, 1) == 0); // not there: nothing changes
      } else {
        const std::uint32_t devices = 1u << (rng() % 6); // 1 to 32, as GPU requests go
        index.insert(k, devices);
        need[k] = devices;
      }
    }
    REQUIRE(index.size() == need.size());
    REQUIRE(std::equal(index.begin(), index.end(), need.begin(), need.end(),
                       [](int a, const auto& b) { return a == b.first; }));
    auto need_of = [&](int k) { return need.at(k); };
    // From every place, under every bound.
    for (auto from = index.begin();; ++from) {
      for (std::uint64_t bound : {0, 1, 2, 3, 8, 31, 32, 1000}) {
        auto plain = from;
        while (plain != index.end() && need_of(*plain) > bound)
          ++plain;
        CHECK(index.first_within(from, bound, need_of) == plain);
      }
      if (from == index.end()) break;
    }
  }
}
