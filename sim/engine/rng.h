// Seeded random streams, one per purpose, and the few distributions dlsim needs. The
// distributions are written here (not std::*_distribution) because the standard leaves their
// algorithms to the library, and outputs must be byte-identical everywhere.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

namespace dlsim {

// xoshiro256** (Blackman and Vigna, 2018), seeded through SplitMix64.
class Rng {
public:
  explicit Rng(std::uint64_t seed);

  // A stream for one named purpose ("gen-trace.arrivals", "zoo.assign"): independent of every
  // other name and a pure function of (run seed, name).
  static Rng stream(std::uint64_t run_seed, std::string_view name);

  std::uint64_t next_u64();
  double uniform01();                   // [0, 1) with 53 random bits
  double uniform(double lo, double hi); // [lo, hi)
  std::uint64_t below(std::uint64_t n); // [0, n), unbiased (Lemire's method)
  double exponential(double rate);      // mean 1 / rate
  double normal(double mean, double stddev);
  double lognormal(double mu, double sigma);             // exp(normal(mu, sigma))
  std::size_t weighted(std::span<const double> weights); // index drawn with these weights

private:
  std::uint64_t s_[4];
};

// Fisher-Yates: the items in a uniform random order, drawing below(i) for i = size down to 2.
template <class T>
void shuffle(std::span<T> items, Rng& rng) {
  for (std::size_t i = items.size(); i > 1; --i)
    std::swap(items[i - 1], items[rng.below(i)]);
}

std::uint64_t fnv1a64(std::string_view text);

} // namespace dlsim
