// Least attained service, continuous and two-dimensional: the job with the fewest GPU-seconds run
// so far goes first, and a running job is preempted as soon as waiting jobs have less. This is
// the 2D-LAS of Tiresias (Gu et al., NSDI'19, section 3.2) before its priorities are discretized
// into queues; LAS itself is the foreground-background discipline surveyed by Nuyens and Wierman
// ("The Foreground-Background queue: a survey", Performance Evaluation 65(3-4), 2008).
// Running jobs are preempted only at the rounds, every `interval_s` while jobs wait (at every
// decision when it is 0); arrivals, finishes and completed actions in between only fill free
// devices in LAS order. Comparing at every event instead preempts a running job each time any
// event finds a waiting job with less service, which thrashes on real traces.
#include "policies/las.h"

#include "policies/priority_pass.h"
#include "sim/engine/error.h"

#include <fmt/format.h>

#include <set>
#include <tuple>

namespace dlsim {

namespace {

class Las final : public Policy {
public:
  Las(Placement placement, double interval_s) : placement_(placement), interval_s_(interval_s) {}

  void on_arrival(JobId j, const View& view) override {
    if (keys_.size() < view.job_count()) keys_.resize(view.job_count());
    keys_[j] = {0.0, kWaiting, j};
    order_.insert(keys_[j]);
    changed_ = true;
  }

  void on_finish(JobId j, const View&) override {
    order_.erase(keys_[j]);
    holders_.erase(j);
    changed_ = true;
  }

  void on_action_done(JobId, const View&) override { changed_ = true; }

  void schedule(Control& control) override {
    // Service only grows, so decisions change only at arrivals, finishes, completed actions and
    // rounds. The runtime may call schedule() at other times too (a dropped stale event still
    // advances the clock); deciding then would make the schedule depend on them.
    const bool round = interval_s_ > 0 ? control.now() == wake_ : changed_;
    if (!changed_ && !round) return;
    changed_ = false;
    for (JobId j : holders_)
      rekey(control, j); // running jobs' service grew since then

    pass_.decide(
        control,
        [&](const auto& offer) {
          for (const Key& k : order_) {
            if (!offer(std::get<2>(k))) break;
          }
        },
        holders_, round);
    pass_.apply(control, placement_, holders_, /*preempt=*/round);
    for (JobId j : pass_.suspended())
      rekey(control, j);
    for (JobId j : pass_.started())
      rekey(control, j);

    // Time-slice among jobs with little service: look again after interval_s while some wait.
    bool someone_waits = order_.size() > holders_.size();
    if (interval_s_ > 0 && someone_waits && wake_ <= control.now()) {
      wake_ = control.now() + from_seconds(interval_s_);
      control.wake_at(wake_);
    }
  }

private:
  static constexpr std::uint8_t kHolding = 0;
  static constexpr std::uint8_t kWaiting = 1;
  // (attained GPU-seconds, holders first on a tie, job id = submission order)
  using Key = std::tuple<double, std::uint8_t, JobId>;

  void rekey(const View& view, JobId j) {
    order_.erase(keys_[j]);
    keys_[j] = {attained_now(view, j), is_holder(view.state(j)) ? kHolding : kWaiting, j};
    order_.insert(keys_[j]);
  }

  Placement placement_;
  double interval_s_;
  PriorityPass pass_; // its buffers are reused from one decision to the next
  std::vector<Key> keys_;
  std::set<Key> order_;     // every arrived, unfinished job, least service first
  std::set<JobId> holders_; // started or running, by this policy
  SimTime wake_ = -1;
  bool changed_ = false; // an arrival, finish or completed action since the last decision
};

} // namespace

double las_interval(const PolicyParams& params) {
  double s = params.number("interval_s");
  if (!(s >= 0))
    throw InputError(fmt::format("policy.params.interval_s: expected seconds >= 0, got {}", s));
  return s;
}

std::unique_ptr<Policy> make_las(Placement placement, double interval_s) {
  return std::make_unique<Las>(placement, interval_s);
}

} // namespace dlsim
