// The type exchange's shortcuts (policies/type_choice.cpp): the bounds that skip evictions
// (choose_types with prune) give exactly the types of the search that tries every eviction, and
// a job whose devices exceed the capacity of each of its types gets no type and can be left out
// of the problem without moving any other job's type (fits_some_type, max-throughput).
#include "policies/type_choice.h"

#include <catch2/catch.hpp>

#include <random>
#include <vector>

using dlsim::choose_types;
using dlsim::kNoType;
using dlsim::TypeChoiceProblem;

namespace {

// Jobs of 1 to 8 devices on up to 4 types, capacities 0 to 16. Values: 1 on a best type,
// a random fraction or exactly 1 elsewhere (ties), some pairs not allowed; with `one_type`, a
// single type where every job has value 1 (a cluster of one kind, as bench-10k).
TypeChoiceProblem random_problem(std::mt19937& rng, bool one_type) {
  TypeChoiceProblem p;
  p.types = one_type ? 1 : 1 + rng() % 4;
  for (std::size_t t = 0; t < p.types; ++t)
    p.capacity.push_back(static_cast<std::uint32_t>(rng() % 17));
  const std::size_t jobs = 1 + rng() % 40;
  std::uniform_real_distribution<double> fraction(0.05, 1.0);
  for (std::size_t j = 0; j < jobs; ++j) {
    p.need.push_back(1 + static_cast<std::uint32_t>(rng() % 8));
    const std::size_t best = rng() % p.types;
    for (std::size_t t = 0; t < p.types; ++t) {
      double v = t == best || rng() % 5 == 0 ? 1.0 : fraction(rng);
      if (t != best && rng() % 4 == 0) v = -1;
      p.value.push_back(v);
    }
  }
  return p;
}

} // namespace

TEST_CASE("the type exchange's eviction bounds change no choice", "[hetero]") {
  std::mt19937 rng(5);
  for (int k = 0; k < 3000; ++k) {
    const TypeChoiceProblem p = random_problem(rng, k % 3 == 0);
    INFO("case " << k);
    REQUIRE(choose_types(p, true) == choose_types(p, true, {}, /*prune=*/false));
    // Without select: a random start, kept within capacity, whose jobs only change types.
    std::vector<std::int32_t> start(p.need.size(), kNoType);
    std::vector<std::uint32_t> left = p.capacity;
    for (std::size_t j = 0; j < p.need.size(); ++j) {
      const std::size_t t = rng() % p.types;
      if (p.value[j * p.types + t] >= 0 && left[t] >= p.need[j] && rng() % 2 == 0) {
        start[j] = static_cast<std::int32_t>(t);
        left[t] -= p.need[j];
      }
    }
    REQUIRE(choose_types(p, false, start) == choose_types(p, false, start, /*prune=*/false));
  }
}

TEST_CASE("a job that fits no type's capacity leaves every other job's type as it was",
          "[hetero]") {
  std::mt19937 rng(9);
  int dropped = 0;
  for (int k = 0; k < 3000; ++k) {
    const TypeChoiceProblem p = random_problem(rng, k % 3 == 0);
    const std::vector<std::int32_t> all = choose_types(p, true, {}, /*prune=*/false);
    // The problem without the jobs whose need exceeds every allowed type's capacity.
    TypeChoiceProblem kept;
    kept.types = p.types;
    kept.capacity = p.capacity;
    std::vector<std::size_t> index; // kept job -> job of p
    for (std::size_t j = 0; j < p.need.size(); ++j) {
      bool fits = false;
      for (std::size_t t = 0; t < p.types; ++t)
        fits |= p.value[j * p.types + t] >= 0 && p.need[j] <= p.capacity[t];
      if (!fits) {
        REQUIRE(all[j] == kNoType);
        ++dropped;
        continue;
      }
      index.push_back(j);
      kept.need.push_back(p.need[j]);
      for (std::size_t t = 0; t < p.types; ++t)
        kept.value.push_back(p.value[j * p.types + t]);
    }
    const std::vector<std::int32_t> some = choose_types(kept, true);
    for (std::size_t i = 0; i < index.size(); ++i)
      REQUIRE(some[i] == all[index[i]]);
  }
  CHECK(dropped > 1000); // the case is exercised
}
