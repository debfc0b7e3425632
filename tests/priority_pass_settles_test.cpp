// PriorityPass must not suspend and resume the same jobs for ever: with a fixed priority per job
// nothing a decision reads changes between two decisions but the jobs' states, so a job
// suspended for a better one may come back only when something ran or ended. A policy with a
// fixed random priority (preemptive, through PriorityPass and HeldRuns) runs random traces of
// multi-worker jobs on two or three small nodes under each placement; every run must end, and
// the preemptions stay within what the jobs' arrivals and ends could cause.
#include "policies/held_runs.h"
#include "policies/priority_pass.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

using namespace dlsim;
using namespace dlsim::test;

namespace {

using Key = std::tuple<std::uint32_t, JobId>; // (priority, job): lower goes first
constexpr std::uint64_t kMostDecisions = 100000;

class FixedOrder final : public Policy {
public:
  FixedOrder(Placement placement, std::uint64_t* decisions)
      : placement_(placement), decisions_(decisions) {}

  void on_arrival(JobId j, const View& view) override {
    if (keys_.size() <= j) {
      keys_.resize(j + 1);
      need_.resize(j + 1);
    }
    keys_[j] = {static_cast<std::uint32_t>((j * 2654435761u) % 97), j};
    need_[j] = view.request(j).devices();
    waiting_.insert(keys_[j]);
  }
  void on_finish(JobId j, const View&) override {
    if (holders_.erase(j) > 0)
      held_.erase(keys_[j]);
    else
      waiting_.erase(keys_[j]);
  }
  void schedule(Control& control) override {
    if (waiting_.empty()) return;
    // A run that does not end: stop it here rather than at the runtime's preemption limit.
    if (++*decisions_ > kMostDecisions) throw std::runtime_error("decisions without end");
    pass_.decide(control, held_.walk(waiting_, [](const Key& k) { return std::get<1>(k); }),
                 holders_);
    pass_.apply(control, placement_, holders_);
    for (JobId j : pass_.suspended()) {
      held_.erase(keys_[j]);
      waiting_.insert(keys_[j]);
    }
    for (JobId j : pass_.started()) {
      waiting_.erase(keys_[j]);
      held_.insert(keys_[j], j, need_[j]);
    }
  }

private:
  Placement placement_;
  std::uint64_t* decisions_;
  PriorityPass pass_;
  HolderSet holders_;
  HeldRuns<Key> held_;
  std::set<Key> waiting_;
  std::vector<Key> keys_;
  std::vector<std::uint32_t> need_;
};

} // namespace

TEST_CASE("PriorityPass settles: multi-worker jobs on a few small nodes", "[priority_pass]") {
  std::mt19937 rng(23);
  for (const char* placement : {"consolidate", "first-fit", "spread", "topology-aware"}) {
    for (int trial = 0; trial < 60; ++trial) {
      const unsigned nodes = 2 + rng() % 2;
      const unsigned per_node = 3 + rng() % 4;
      const Cluster c = cluster_from_yaml(
          fmt::format("nodes:\n  - {{count: {}, devices: {{V100: {}}}}}\n", nodes, per_node));
      std::string csv = "id,submit_s,workers,gpus_per_worker,duration_s\n";
      const int jobs = 30;
      for (int j = 0; j < jobs; ++j) {
        const unsigned workers = 1 + rng() % nodes;
        const unsigned per_worker = 1 + rng() % per_node;
        csv += fmt::format("j{},{},{},{},{}\n", j, j * (1 + rng() % 30), workers, per_worker,
                           20 + rng() % 400);
      }
      const Workload w = workload_from_csv(c, csv);
      std::uint64_t decisions = 0;
      const PolicyEntry entry{"fixed-order", "test", false, {}, [&](const PolicySetup& s) {
                                return std::make_unique<FixedOrder>(s.placement, &decisions);
                              }};
      INFO(fmt::format("placement {}, trial {}, {} nodes of {} GPUs\n{}", placement, trial, nodes,
                       per_node, csv));
      RunOutput out;
      REQUIRE_NOTHROW(out = run_policy(entry, c, w, YAML::Node(), {}, placement));
      std::uint64_t preemptions = 0;
      for (const JobState& s : out.state.jobs)
        preemptions += s.preemptions;
      // Each arrival or end can make room for (or outrank) at most every running job once more.
      CHECK(preemptions <= static_cast<std::uint64_t>(2 * jobs * jobs));
    }
  }
}
