// WaitingIndex (the waiting jobs of a priority order, also by class) against a plain scan of a
// std::set on random inserts and erases: first_within must find the first key from a place
// whose class is not passed over, as stepping over each key would.
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
    // Classes are request sizes here (1 to 32 devices, as GPU requests go).
    WaitingIndex<int, std::uint32_t> index;
    std::map<int, std::uint32_t> need;   // key -> devices, the plain model
    std::map<int, std::uint32_t> number; // key -> its class's number
    const int keys = 1 + static_cast<int>(rng() % 80);
    for (int step = 0; step < 150; ++step) {
      const int k = static_cast<int>(rng() % static_cast<unsigned>(keys));
      if (auto it = need.find(k); it != need.end()) {
        CHECK(index.erase(k, number.at(k)) == 1);
        need.erase(it);
        CHECK(index.erase(k, number.at(k)) == 0); // not there: nothing changes
      } else {
        const std::uint32_t devices = 1u << (rng() % 6);
        number[k] = index.number_of(devices);
        CHECK(index.number_of(devices) == number[k]); // the same number every time
        index.insert(k, number[k]);
        need[k] = devices;
      }
    }
    REQUIRE(index.size() == need.size());
    REQUIRE(std::equal(index.begin(), index.end(), need.begin(), need.end(),
                       [](int a, const auto& b) { return a == b.first; }));
    auto number_of = [&](int k) { return number.at(k); };
    // From every place, under every bound, and with the sizes of one random set passed over too.
    const std::uint32_t excluded = static_cast<std::uint32_t>(rng());
    for (auto from = index.begin();; ++from) {
      for (std::uint64_t bound : {0, 1, 2, 3, 8, 31, 32, 1000}) {
        for (bool exclude : {false, true}) {
          auto pass_over = [&](std::uint32_t devices) {
            return devices > bound || (exclude && (excluded & devices) != 0);
          };
          auto plain = from;
          while (plain != index.end() && pass_over(need.at(*plain)))
            ++plain;
          CHECK(index.first_within(from, number_of, pass_over) == plain);
        }
      }
      if (from == index.end()) break;
    }
  }
}
