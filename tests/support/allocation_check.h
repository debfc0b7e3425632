// Gavel's allocation constraints checked on a solution X (policies/gavel/allocation.h): every
// entry non-negative and zero where the job has no throughput, each job's row at most 1 (time
// fractions), each type's devices not exceeded (scale x X summed), each within `slack`.
#pragma once

#include "policies/gavel/allocation.h"

#include <catch2/catch.hpp>

#include <vector>

namespace dlsim::test {

inline void require_feasible(const AllocationProblem& p, const std::vector<double>& x,
                             double slack) {
  REQUIRE(x.size() == p.jobs * p.types);
  for (std::size_t i = 0; i < p.jobs; ++i) {
    double row = 0;
    for (std::size_t t = 0; t < p.types; ++t) {
      REQUIRE(x[i * p.types + t] >= 0);
      if (p.throughput[i * p.types + t] == 0) REQUIRE(x[i * p.types + t] == 0);
      row += x[i * p.types + t];
    }
    REQUIRE(row <= 1 + slack);
  }
  for (std::size_t t = 0; t < p.types; ++t) {
    double used = 0;
    for (std::size_t i = 0; i < p.jobs; ++i)
      used += p.scale[i] * x[i * p.types + t];
    REQUIRE(used <= p.capacity[t] + slack);
  }
}

} // namespace dlsim::test
