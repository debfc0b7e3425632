// observe_speed (policies/speed_model.h) against the plain computation: each shape's mean and
// count updated at every observation, and the ridge fit of the shapes' means. A model fed random
// observations, many of them the same time at the same shape again (which observe_speed only
// counts), must hold the same means bit for bit, the same counts once its repeats are added, and
// the fit a model built from those means alone has.
#include "policies/speed_model.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <vector>

using namespace dlsim;

namespace {

struct PlainShape {
  std::uint32_t workers, ps;
  double mean_s;
  std::uint32_t count;
};

std::uint64_t bits(double x) {
  return std::bit_cast<std::uint64_t>(x);
}

} // namespace

TEST_CASE("observe_speed keeps the means, counts and fit of the plain computation",
          "[speed_model]") {
  std::mt19937 rng(23);
  std::size_t repeats_seen = 0;
  for (int trial = 0; trial < 300; ++trial) {
    SpeedModel m = make_speed_model(0.5 + rng() % 4, 0.01 * (rng() % 5), 0.02 * (rng() % 3));
    std::vector<PlainShape> plain;
    const double times[] = {0.25, 0.3, 0.3125, 0.5, 1.0 / 3.0};
    std::uint32_t w = 1, p = 0;
    double t = times[0];
    for (int step = 0; step < 60; ++step) {
      // Mostly the same shape and time again (a job that did not move), sometimes another.
      if (rng() % 3 == 0) {
        w = 1 + rng() % 3;
        p = rng() % 3;
      }
      if (rng() % 3 == 0) t = times[rng() % std::size(times)];
      const int again = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < again; ++k) {
        observe_speed(m, w, p, t);
        auto it = std::find_if(plain.begin(), plain.end(),
                               [&](const PlainShape& s) { return s.workers == w && s.ps == p; });
        if (it == plain.end()) {
          plain.push_back({w, p, t, 1});
        } else {
          ++it->count;
          it->mean_s += (t - it->mean_s) / it->count;
        }
      }
      repeats_seen += m.repeats;
      REQUIRE(m.shapes.size() == plain.size());
      for (std::size_t i = 0; i < plain.size(); ++i) {
        CHECK(m.shapes[i].workers == plain[i].workers);
        CHECK(m.shapes[i].ps == plain[i].ps);
        CHECK(bits(m.shapes[i].mean_s) == bits(plain[i].mean_s));
        CHECK(m.shapes[i].count + (i == m.last ? m.repeats : 0) == plain[i].count);
      }
      // The fit of the shapes' means: a model given each shape once, at its mean, in the same
      // order (its last observation fits them all).
      SpeedModel fresh = make_speed_model(m.prior[0], m.prior[1], m.prior[2]);
      for (const PlainShape& s : plain)
        observe_speed(fresh, s.workers, s.ps, s.mean_s);
      for (int i = 0; i < 3; ++i)
        CHECK(bits(m.theta[i]) == bits(fresh.theta[i]));
    }
  }
  CHECK(repeats_seen > 1000); // the repeats were counted beside the shapes, not in them
}
