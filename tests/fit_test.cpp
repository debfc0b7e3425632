// One fit rule for every caller (sim/cluster/fit.h): the runtime's checks, the policies' counts
// and the workload's "can it ever fit" agree, so a policy never counts a worker the runtime
// would refuse.
#include "sim/cluster/fit.h"
#include "sim/engine/rng.h"

#include <catch2/catch.hpp>

#include <limits>

using namespace dlsim;

TEST_CASE("fits_in forgives the last bit of a sum of decimal fractions", "[fit]") {
  // 0.1 + 0.2 is 0.30000000000000004 in binary: 0.3 cores free must hold it.
  CHECK(0.1 + 0.2 > 0.3);
  CHECK(fits_in(0.1 + 0.2, 0.3));
  CHECK(fits_in(4, 4));
  CHECK_FALSE(fits_in(4.001, 4)); // a thousandth of a core is a real shortfall
}

TEST_CASE("workers_in counts what the product test accepts", "[fit]") {
  // 0.3 / 0.1 is 2.9999999999999996: three workers of 0.1 cores fit in 0.3.
  CHECK(workers_in(0.3, 0.1) == 3);
  CHECK(workers_in(16, 4) == 4);
  CHECK(workers_in(15.5, 4) == 3);
  CHECK(workers_in(3.9, 4) == 0);
  CHECK(workers_in(0, 2) == 0);
  CHECK(workers_in(-1, 2) == 0); // over-committed by a claim: nothing fits
  // A request of none of the resource is not bounded by it.
  CHECK(workers_in(0, 0) == std::numeric_limits<std::uint32_t>::max());
  CHECK(workers_in(0, 0, 7) == 7);
  CHECK(workers_in(1e12, 1, 100) == 100);
}

TEST_CASE("workers_in is the largest k with fits_in(k * per, free), on seeded draws", "[fit]") {
  Rng rng(7);
  for (int i = 0; i < 20000; ++i) {
    // Sums of tenths and quarters, as trace requests are.
    const double per = static_cast<double>(1 + rng.below(40)) / (i % 2 ? 10.0 : 4.0);
    double free = 0;
    for (auto k = rng.below(13); k > 0; --k)
      free += per;
    free += static_cast<double>(rng.below(4)) / 10.0;
    const std::uint32_t k = workers_in(free, per);
    INFO("free " << free << " per " << per << " k " << k);
    CHECK(fits_in(k * per, free));
    CHECK_FALSE(fits_in((k + 1) * per, free));
  }
}
