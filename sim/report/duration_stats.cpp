#include "sim/report/duration_stats.h"

#include <boost/sort/spreadsort/integer_sort.hpp>

#include <algorithm>
#include <cmath>

namespace dlsim {

// A radix sort (Boost.Sort's integer_sort): a million durations in a few passes over the
// vector instead of std::sort's comparisons of doubles (2.4% of a 1M-job run).
void sort_durations(std::vector<SimTime>& v) {
  boost::sort::spreadsort::integer_sort(v.begin(), v.end());
}

PercentileRank percentile_rank(std::size_t n, double p) {
  const double pos = p / 100.0 * static_cast<double>(n - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  return {lo, std::min(lo + 1, n - 1), pos - static_cast<double>(lo)};
}

double percentile_of_sorted(std::span<const SimTime> v, double p) {
  if (v.empty()) return 0;
  const PercentileRank r = percentile_rank(v.size(), p);
  const double a = to_seconds(v[r.lo]);
  const double b = to_seconds(v[r.hi]);
  return a + (b - a) * r.frac;
}

namespace {

// The i-th of the whole sorted sequence: rest's negatives, the zeros, rest's positives.
SimTime at_rank(SortedWithZeros v, std::size_t negatives, std::size_t i) {
  if (i < negatives) return v.rest[i];
  if (i < negatives + v.zeros) return 0;
  return v.rest[i - v.zeros];
}

std::size_t negatives_of(std::span<const SimTime> rest) {
  return static_cast<std::size_t>(std::lower_bound(rest.begin(), rest.end(), SimTime{0}) -
                                  rest.begin());
}

} // namespace

double percentile_with_zeros(SortedWithZeros v, double p) {
  const std::size_t n = v.rest.size() + v.zeros;
  if (n == 0) return 0;
  const std::size_t negatives = negatives_of(v.rest);
  const PercentileRank r = percentile_rank(n, p);
  const double a = to_seconds(at_rank(v, negatives, r.lo));
  const double b = to_seconds(at_rank(v, negatives, r.hi));
  return a + (b - a) * r.frac;
}

double mean_with_zeros(SortedWithZeros v) {
  const std::size_t n = v.rest.size() + v.zeros;
  double sum = 0; // the zeros, between the negatives and the positives, add nothing
  for (SimTime t : v.rest)
    sum += to_seconds(t);
  return n == 0 ? 0.0 : sum / static_cast<double>(n);
}

double mean_of_sorted(std::span<const SimTime> v) {
  double sum = 0; // in the order of v, as std::accumulate over the seconds added them
  for (SimTime t : v)
    sum += to_seconds(t);
  return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
}

} // namespace dlsim
