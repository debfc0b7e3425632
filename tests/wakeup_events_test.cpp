// Wake-ups asked for more than once at one instant: the event queue keeps one entry for them
// (sim/engine/event_queue.h), the policy decides once there, and each still counts as one event.
#include "support/harness.h"

#include <catch2/catch.hpp>

#include <utility>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// Starts job 0 on device 0 at its arrival and asks for wake-ups as its table says, by the
// instant of the decision; records when it decided and whether job 0 had finished by then.
class Waker final : public Policy {
public:
  explicit Waker(std::vector<std::pair<SimTime, std::vector<SimTime>>> asks)
      : asks_(std::move(asks)) {}

  void schedule(Control& control) override {
    decisions.push_back(control.now());
    finished_at_decision.push_back(control.state(0).status == JobStatus::kFinished);
    if (control.state(0).status == JobStatus::kPending) control.start(0, std::vector<DeviceId>{0});
    for (const auto& [at, wakes] : asks_) {
      if (at != control.now()) continue;
      for (SimTime t : wakes)
        control.wake_at(t);
    }
  }

  std::vector<SimTime> decisions;
  std::vector<bool> finished_at_decision;

private:
  std::vector<std::pair<SimTime, std::vector<SimTime>>> asks_;
};

} // namespace

TEST_CASE("wake-ups asked for at one instant: one decision there, each one an event",
          "[runtime][engine]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  // One job, submitted at 0 and started at once, runs 10 s: it finishes at 10 s.
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\na,0,1,10\n");
  constexpr SimTime kS = 1'000'000;
  // At 0 s: three at 5 s, two at 7 s, two at 10 s (the finish's instant) and one at 0 s (not
  // after now: never comes). At 5 s: one more at 7 s.
  Waker p({{0, {5 * kS, 7 * kS, 5 * kS, 10 * kS, 0, 7 * kS, 5 * kS, 10 * kS}}, {5 * kS, {7 * kS}}});
  Simulation sim(c, w, RuntimeConfig{}, p, PolicyInfo{"waker", false});
  const RunResult r = sim.run();
  // One decision per instant: 0 (the arrival), 5 and 7 (wake-ups only), 10 (the finish and its
  // two wake-ups together).
  CHECK(p.decisions == std::vector<SimTime>{0, 5 * kS, 7 * kS, 10 * kS});
  // At 10 s the finish (band 0) was applied before the decision, as without the wake-ups.
  CHECK(p.finished_at_decision == std::vector<bool>{false, false, false, true});
  // Events: 1 arrival + 1 finish + wake-ups 3 (at 5 s) + 2 + 1 (at 7 s) + 2 (at 10 s) = 10.
  CHECK(r.events == 10);
  CHECK(sim.state().jobs[0].end == 10 * kS);
}
