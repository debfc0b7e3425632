// Statistics of many durations (JCTs, queueing delays) kept as whole microseconds: sorted by a
// radix sort, read as seconds in sorted order (summary.json's means and percentiles).
#pragma once

#include "sim/engine/time.h"

#include <cstddef>
#include <span>
#include <vector>

namespace dlsim {

// Sorts ascending. to_seconds is monotone, so the seconds of the sorted durations are the sorted
// seconds: the statistics below equal those of a sorted vector of doubles.
void sort_durations(std::vector<SimTime>& durations);

// Where the p-th percentile of n sorted values lies, by linear interpolation (numpy's default):
// position p/100*(n-1), between ranks lo and hi, `frac` of the way. n must be positive.
struct PercentileRank {
  std::size_t lo = 0;
  std::size_t hi = 0;
  double frac = 0;
};
PercentileRank percentile_rank(std::size_t n, double p);

// That percentile of sorted durations, in seconds (percentile_sorted's for the same seconds).
double percentile_of_sorted(std::span<const SimTime> sorted, double p);

// The mean in seconds, the seconds added in the order given (so a sorted vector gives the bits
// std::accumulate over the sorted seconds gave).
double mean_of_sorted(std::span<const SimTime> sorted);

// Sorted durations whose zeros are counted, not stored: `rest` ascending without a zero, and
// `zeros` zeros that belong between its negative and positive values. Most jobs of a run that
// keeps up start when they are submitted, so their queueing delays are mostly 0. The functions
// below give the bits the ones above give for the whole sorted vector: the same ranks, and the
// mean adds the same values in the same order (an added 0.0 changes no sum that is not -0.0,
// and a sum that starts at +0.0 and adds negative values never is).
struct SortedWithZeros {
  std::span<const SimTime> rest;
  std::size_t zeros = 0;
};
double percentile_with_zeros(SortedWithZeros sorted, double p);
double mean_with_zeros(SortedWithZeros sorted);

} // namespace dlsim
