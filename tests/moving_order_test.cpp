// MovingOrder (members sorted by keys that move with time, computed only where their order
// could have changed) against sorting freshly computed keys at every step, on random jobs whose
// keys are computed as srtf's and las's are (remaining time falling at a rate, clamped at 0;
// attained service growing with the devices), many of them tied or nearly so.
#include "policies/moving_order.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

using namespace dlsim;

namespace {

// A job's state as the runtime keeps it: settled at last_update, moving at rate while running.
struct FakeJob {
  bool remaining = true; // srtf-like key, else las-like
  double iterations = 0, per_iteration = 0, done = 0, rate = 0, attained = 0, devices = 1;
  SimTime last_update = 0;
  bool running = false;
  bool sliced = false; // settled now and then without a change the order is told of
};

double done_now(const FakeJob& f, SimTime now) {
  return f.running && now > f.last_update ? f.done + f.rate * to_seconds(now - f.last_update)
                                          : f.done;
}

double value_now(const FakeJob& f, SimTime now) {
  if (f.remaining) return std::max(0.0, f.iterations - done_now(f, now)) * f.per_iteration;
  return f.running && now > f.last_update ? f.attained + f.devices * to_seconds(now - f.last_update)
                                          : f.attained;
}

KeyMotion motion_of(const FakeJob& f) {
  KeyMotion m;
  if (f.remaining) {
    m.scale = f.iterations * f.per_iteration;
    m.floor = 0;
    m.per_s = f.running ? -(f.rate * f.per_iteration) : 0;
  } else {
    m.per_s = f.running ? f.devices : 0;
    m.inputs = {f.attained, f.devices, static_cast<double>(f.last_update), f.running ? 1.0 : 0.0,
                0,          0};
    m.same_inputs_means_same_key = !f.sliced;
  }
  return m;
}

// The runtime's settle: done and attained brought to now, as it does before any change.
void settle(FakeJob& f, SimTime now) {
  if (f.running && now > f.last_update) {
    const double dt = to_seconds(now - f.last_update);
    f.done += f.rate * dt;
    f.attained += f.devices * dt;
  }
  f.last_update = now;
}

FakeJob random_job(std::mt19937& rng, bool remaining, SimTime now) {
  FakeJob f;
  f.remaining = remaining;
  // Few distinct values, so that many jobs tie or nearly tie.
  f.iterations = static_cast<double>(100 * (1 + rng() % 5));
  f.per_iteration = (rng() % 2 == 0) ? 0.5 : 0.1 * (1 + rng() % 3);
  f.rate = (rng() % 2 == 0) ? 2.0 : 1.0 / (1 + rng() % 3);
  f.devices = static_cast<double>(1 + rng() % 3);
  f.done = rng() % 3 == 0 ? 0 : static_cast<double>(rng() % 400);
  f.attained = rng() % 3 == 0 ? 0 : static_cast<double>(rng() % 50);
  f.last_update = now;
  f.running = rng() % 4 != 0;
  f.sliced = rng() % 3 == 0;
  return f;
}

} // namespace

TEST_CASE("MovingOrder sorts members as freshly computed keys would, at every step",
          "[moving_order]") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const bool remaining = trial % 2 == 0;
    std::map<JobId, FakeJob> jobs; // every job made so far
    std::map<JobId, std::uint32_t> members;
    MovingOrder order;
    SimTime now = 0;
    JobId next_id = 0;
    auto key = [&](JobId j) {
      const FakeJob& f = jobs.at(j);
      return PassKey{value_now(f, now), f.running ? 0 : 1, j};
    };
    auto motion = [&](JobId j) { return motion_of(jobs.at(j)); };
    for (int step = 0; step < 150; ++step) {
      // Time moves on by nothing, a microsecond, or up to a few hundred seconds.
      const int dice = static_cast<int>(rng() % 4);
      now += dice == 0 ? 0 : dice == 1 ? 1 : static_cast<SimTime>(rng() % 300'000'000);
      for (int c = static_cast<int>(rng() % 6); c > 0; --c) {
        const int what = static_cast<int>(rng() % 4);
        if (what == 0 || members.empty()) { // a job joins (its twin too, sometimes)
          FakeJob f = random_job(rng, remaining, now);
          for (int copies = rng() % 3 == 0 ? 2 : 1; copies > 0; --copies) {
            jobs[next_id] = f;
            members[next_id] = static_cast<std::uint32_t>(f.devices);
            order.add(next_id, static_cast<std::uint32_t>(f.devices));
            ++next_id;
          }
          continue;
        }
        auto it = members.begin();
        std::advance(it, static_cast<long>(rng() % members.size()));
        const JobId j = it->first;
        FakeJob& f = jobs.at(j);
        if (what == 1) { // leaves (finished or suspended)
          order.remove(j);
          members.erase(it);
        } else if (what == 2) { // its rate or status changes
          settle(f, now);
          if (rng() % 2 == 0)
            f.running = !f.running;
          else
            f.rate = 1.0 / (1 + rng() % 4);
          order.changed(j);
        } else if (f.sliced || f.remaining) {
          settle(f, now); // without a change: the key's function stays the same
        }
      }
      if (rng() % 25 == 0) order.changed_all();
      order.refresh(now, key, motion);

      std::vector<std::pair<PassKey, JobId>> plain;
      plain.reserve(members.size());
      for (const auto& [j, d] : members)
        plain.emplace_back(key(j), j);
      std::sort(plain.begin(), plain.end());
      REQUIRE(order.size() == plain.size());
      std::uint64_t sum = 0;
      for (std::size_t i = 0; i < plain.size(); ++i) {
        REQUIRE(order.jobs()[i] == plain[i].second);
        REQUIRE(order.prefix()[i] == sum);
        sum += members.at(plain[i].second);
      }
      REQUIRE(order.prefix()[plain.size()] == sum);
      // Comparisons with keys at, just beside and far from the members'.
      for (std::size_t q = 0; q < 20 && !plain.empty(); ++q) {
        const PassKey& near = plain[rng() % plain.size()].first;
        const double shift = std::array<double, 4>{0.0, 1e-12, -1e-9, 5.0}[rng() % 4];
        const PassKey w{std::get<0>(near) + shift, static_cast<std::uint8_t>(rng() % 2),
                        static_cast<JobId>(rng() % (next_id + 1))};
        const JobId h = plain[rng() % plain.size()].second;
        REQUIRE(order.key_below(h, w) == (key(h) < w));
      }
    }
  }
}
