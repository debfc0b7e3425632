// The fixed-priority test policy (fixed_priority_pass.h).
#include "tests/support/fixed_priority_pass.h"

#include "policies/held_runs.h"
#include "policies/priority_pass.h"
#include "policies/waiting_index.h"

#include <tuple>

namespace dlsim::test {

namespace {

using Key = std::tuple<std::uint32_t, JobId>; // (priority, job): lower goes first

class FixedPriority final : public Policy {
public:
  FixedPriority(Placement placement, FixedPriorityOptions o) : placement_(placement), o_(o) {
    pass_.pass_over_unplaceable(o.pass_over_unplaceable);
    pass_.set_max_rounds(o.max_rounds);
  }

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
    const bool round = !o_.rounds_only || control.now() >= wake_;
    if (waiting_.empty()) return;
    // While jobs wait, rounds every 300 s (none once the queue is empty: the run ends).
    if (o_.rounds_only && round) {
      wake_ = control.now() + from_seconds(300);
      control.wake_at(wake_);
    }
    pass_.decide(control, walk(), holders_, round);
    pass_.apply(control, placement_, holders_, round);
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
  PriorityWalk walk() {
    auto job_of = [](const Key& k) { return std::get<1>(k); };
    auto advance = [this](WaitingIndex<Key, JobShape>::const_iterator it, const WalkItem& item) {
      if (!o_.bounded) return it; // the plain walk: every waiting job offered
      return waiting_.first_within(
          it, [this](const Key& k) { return class_[std::get<1>(k)]; },
          [&item](const JobShape& s) { return PriorityPass::passes_over(item, s); });
    };
    PriorityWalk walk = held_.walk_with(waiting_, job_of, advance);
    if (o_.bounded) return walk;
    // The plain walk: each holder of a run handed alone.
    return [walk, run = std::vector<JobId>{}, at = std::size_t{0}](WalkItem& item) mutable {
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

  Placement placement_;
  FixedPriorityOptions o_;
  PriorityPass pass_;
  HolderSet holders_;
  HeldRuns<Key> held_;
  WaitingIndex<Key, JobShape> waiting_;
  std::vector<Key> keys_;
  std::vector<std::uint32_t> need_;
  std::vector<std::uint32_t> class_;
  SimTime wake_ = 0;
};

} // namespace

PassOutcome run_fixed_priority(const FixedPriorityOptions& o, const Cluster& c, const Workload& w) {
  const PolicyEntry entry{"fixed-priority", "test", false, {}, [o](const PolicySetup& s) {
                            return std::make_unique<FixedPriority>(s.placement, o);
                          }};
  try {
    return {run_policy(entry, c, w, YAML::Node()), ""};
  } catch (const std::exception& e) {
    return {std::nullopt, e.what()};
  }
}

} // namespace dlsim::test
