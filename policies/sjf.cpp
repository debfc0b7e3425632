// Shortest job first: the waiting job with the shortest true duration starts next; no
// preemption, and a job that does not fit blocks longer ones (an oracle baseline, as in
// Tiresias, Gu et al., NSDI'19, section 6.1).
#include "policies/sjf.h"

#include <set>
#include <utility>

namespace dlsim {

namespace {

class Sjf final : public Policy {
public:
  explicit Sjf(Placement placement) : placement_(placement) {}

  void on_arrival(JobId j, const View& view) override { waiting_.emplace(view.oracle_total_s(j), j); }

  void schedule(Control& control) override {
    while (!waiting_.empty()) {
      JobId j = waiting_.begin()->second;
      auto devices = place(control, j, placement_);
      if (!devices) return;
      control.start(j, *devices);
      waiting_.erase(waiting_.begin());
    }
  }

private:
  Placement placement_;
  std::set<std::pair<double, JobId>> waiting_;  // (true duration, id): ties go to the earlier job
};

}  // namespace

std::unique_ptr<Policy> make_sjf(Placement placement) { return std::make_unique<Sjf>(placement); }

}  // namespace dlsim
