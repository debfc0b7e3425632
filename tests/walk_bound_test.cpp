// PriorityPass's bounds on the walk (WalkItem::max_need, PriorityPass::shape_failed): a walk
// that passes over the waiting jobs asking for more devices than the bound, or of a shape that
// failed placement, must choose what the walk that offers every job chooses, in every round of
// the placement check. A policy with a fixed random priority per job
// (preemptive, through PriorityPass, HeldRuns and WaitingIndex as tiresias uses them) runs random
// traces on random clusters of one device type both ways; every job must start, end and be
// preempted at the same times. The plain walk also hands the holders one by one, not as runs:
// a run that does not fit whole (taken by stretches of its prefix sums, WalkItem::run_prefix)
// must choose what offering each of its jobs in turn chooses.
#include "policies/held_runs.h"
#include "policies/priority_pass.h"
#include "policies/waiting_index.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <optional>
#include <random>
#include <tuple>

using namespace dlsim;
using namespace dlsim::test;

namespace {

using Key = std::tuple<std::uint32_t, JobId>; // (priority, job): lower goes first

class FixedPriority final : public Policy {
public:
  FixedPriority(Placement placement, bool bounded) : placement_(placement), bounded_(bounded) {}

  void on_arrival(JobId j, const View& view) override {
    if (keys_.size() <= j) {
      keys_.resize(j + 1);
      need_.resize(j + 1);
      class_.resize(j + 1);
    }
    keys_[j] = {static_cast<std::uint32_t>((j * 2654435761u) % 97), j};
    need_[j] = view.request(j).devices();
    class_[j] = waiting_.number_of(job_shape(view, j));
    waiting_.insert(keys_[j], class_[j]);
  }
  void on_finish(JobId j, const View&) override {
    if (holders_.erase(j) > 0)
      held_.erase(keys_[j]);
    else
      waiting_.erase(keys_[j], class_[j]);
  }
  void schedule(Control& control) override {
    if (waiting_.empty()) return;
    auto job_of = [](const Key& k) { return std::get<1>(k); };
    auto advance = [this](WaitingIndex<Key, JobShape>::const_iterator it, const WalkItem& item) {
      if (!bounded_) return it; // the plain walk: every waiting job offered
      return waiting_.first_within(
          it, [this](const Key& k) { return class_[std::get<1>(k)]; },
          [&item](const JobShape& s) { return PriorityPass::passes_over(item, s); });
    };
    PriorityWalk walk = held_.walk_with(waiting_, job_of, advance);
    if (!bounded_) {
      // The plain walk: each holder of a run handed alone.
      walk = [walk, run = std::vector<JobId>{}, at = std::size_t{0}](WalkItem& item) mutable {
        if (at == run.size()) {
          WalkItem next = item;
          if (!walk(next)) return false;
          if (next.run.empty()) {
            item.job = next.job;
            return true;
          }
          run.assign(next.run.begin(), next.run.end());
          at = 0;
        }
        item.job = run[at++];
        return true;
      };
    }
    pass_.decide(control, walk, holders_);
    pass_.apply(control, placement_, holders_);
    for (JobId j : pass_.suspended()) {
      held_.erase(keys_[j]);
      waiting_.insert(keys_[j], class_[j]);
    }
    for (JobId j : pass_.started()) {
      waiting_.erase(keys_[j], class_[j]);
      held_.insert(keys_[j], j, need_[j]);
    }
  }

private:
  Placement placement_;
  bool bounded_;
  PriorityPass pass_;
  HolderSet holders_;
  HeldRuns<Key> held_;
  WaitingIndex<Key, JobShape> waiting_;
  std::vector<Key> keys_;
  std::vector<std::uint32_t> need_;
  std::vector<std::uint32_t> class_;
};

PolicyEntry fixed_priority(bool bounded) {
  return {"fixed-priority", "test", false, {}, [bounded](const PolicySetup& s) {
            return std::make_unique<FixedPriority>(s.placement, bounded);
          }};
}

// A run's final state, or the message of the error that stopped it.
struct PassOutcome {
  std::optional<RunOutput> out;
  std::string error;
};
PassOutcome run_fixed_priority(bool bounded, const Cluster& c, const Workload& w) {
  try {
    return {run_policy(fixed_priority(bounded), c, w, YAML::Node()), ""};
  } catch (const std::exception& e) {
    return {std::nullopt, e.what()};
  }
}

} // namespace

TEST_CASE("PriorityPass: the bounded walk chooses as the walk of every job", "[walk_bound]") {
  std::mt19937 rng(17);
  std::size_t preempted = 0;
  for (int trial = 0; trial < 40; ++trial) {
    // 2-6 nodes of 4-8 GPUs; jobs of one worker of 1-4 GPUs, so that some fit the count of free
    // devices but no node (the placement check's later rounds).
    const unsigned nodes = 2 + rng() % 5;
    const unsigned per_node = 4 + rng() % 5;
    const Cluster c = cluster_from_yaml(
        fmt::format("nodes:\n  - {{count: {}, devices: {{V100: {}}}}}\n", nodes, per_node));
    std::string csv = "id,submit_s,workers,gpus_per_worker,duration_s\n";
    for (int j = 0; j < 60; ++j)
      csv +=
          fmt::format("j{},{},1,{},{}\n", j, j * (1 + rng() % 20), 1 + rng() % 4, 20 + rng() % 400);
    const Workload w = workload_from_csv(c, csv);
    const PassOutcome plain = run_fixed_priority(false, c, w);
    const PassOutcome bounded = run_fixed_priority(true, c, w);
    // Both walks run to the end, or fail alike.
    CHECK(plain.error == bounded.error);
    if (!plain.out || !bounded.out) continue;
    REQUIRE(plain.out->state.jobs.size() == bounded.out->state.jobs.size());
    for (std::size_t j = 0; j < plain.out->state.jobs.size(); ++j) {
      const JobState& a = plain.out->state.jobs[j];
      const JobState& b = bounded.out->state.jobs[j];
      CHECK(a.first_start == b.first_start);
      CHECK(a.end == b.end);
      CHECK(a.preemptions == b.preemptions);
      preempted += a.preemptions;
    }
  }
  CHECK(preempted > 0); // the traces make the pass preempt, not only fill free devices
}
