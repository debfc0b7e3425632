// Shortest remaining time first, preemptive (an oracle baseline; Tiresias, Gu et al., NSDI'19,
// section 6.1): at every decision the jobs with the least true remaining time get the devices,
// and running jobs outside that set are suspended to make room. The decision is the shared
// PriorityPass (as for tiresias, las and SRSF): a waiting job that its nodes could not hold even
// after the worse jobs leave is left out, so no job is suspended for one that cannot start.
#include "policies/srtf.h"

#include "policies/priority_pass.h"

#include <set>
#include <utility>
#include <vector>

namespace dlsim {

namespace {

class Srtf final : public Policy {
public:
  explicit Srtf(Placement placement) : placement_(placement) {}

  void on_arrival(JobId j, const View& view) override {
    if (keys_.size() < view.job_count()) keys_.resize(view.job_count());
    keys_[j] = {view.oracle_remaining_s(j), j};
    order_.insert(keys_[j]);
  }
  void on_finish(JobId j, const View&) override {
    order_.erase(keys_[j]);
    holders_.erase(j);
  }

  void schedule(Control& control) override {
    for (JobId j : holders_)
      rekey(control, j); // running jobs' remaining time shrank
    pass_.decide(
        control,
        [&](const auto& offer) {
          for (const auto& [remaining, j] : order_) {
            if (!offer(j)) break;
          }
        },
        holders_);
    pass_.apply(control, placement_, holders_);
    // A job suspended now stopped at its current remaining time: key it there.
    for (JobId j : pass_.suspended())
      rekey(control, j);
  }

private:
  void rekey(const View& view, JobId j) {
    order_.erase(keys_[j]);
    keys_[j] = {view.oracle_remaining_s(j), j};
    order_.insert(keys_[j]);
  }

  Placement placement_;
  PriorityPass pass_; // its buffers are reused from one decision to the next
  std::vector<std::pair<double, JobId>> keys_;
  std::set<std::pair<double, JobId>> order_; // (true remaining s, id): every unfinished job
  std::set<JobId> holders_;                  // started or resumed by this policy
};

} // namespace

std::unique_ptr<Policy> make_srtf(Placement placement) {
  return std::make_unique<Srtf>(placement);
}

} // namespace dlsim
