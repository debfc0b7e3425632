#include "sim/engine/rng.h"

#include <cmath>
#include <numbers>

namespace dlsim {

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

} // namespace

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

Rng::Rng(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (auto& word : s_)
    word = splitmix64(x);
}

Rng Rng::stream(std::uint64_t run_seed, std::string_view name) {
  std::uint64_t x = run_seed;
  std::uint64_t mixed = splitmix64(x) ^ fnv1a64(name);
  return Rng(mixed);
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform01() {
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

double Rng::uniform(double lo, double hi) {
  return lo + (hi - lo) * uniform01();
}

std::uint64_t Rng::below(std::uint64_t n) {
  // Lemire, "Fast random integer generation in an interval" (2019).
  __extension__ using U128 = unsigned __int128;
  U128 m = static_cast<U128>(next_u64()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<U128>(next_u64()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

double Rng::exponential(double rate) {
  return -std::log1p(-uniform01()) / rate;
}

double Rng::normal(double mean, double stddev) {
  // Box-Muller; one of the pair is discarded so that a draw consumes a fixed number of words.
  double u1 = uniform01();
  double u2 = uniform01();
  double r = std::sqrt(-2.0 * std::log1p(-u1));
  return mean + stddev * r * std::cos(2.0 * std::numbers::pi * u2);
}

double Rng::lognormal(double mu, double sigma) {
  return std::exp(normal(mu, sigma));
}

std::size_t Rng::weighted(std::span<const double> weights) {
  double total = 0;
  for (double w : weights)
    total += w;
  double x = uniform01() * total;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (x < weights[i]) return i;
    x -= weights[i];
  }
  return weights.size() - 1;
}

} // namespace dlsim
