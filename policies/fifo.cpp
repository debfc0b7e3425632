// FIFO: jobs start in submission order; a job that does not fit blocks every job behind it
// (head-of-line blocking), as in the baseline of Tiresias (Gu et al., NSDI'19, section 6).
#include "policies/fifo.h"

#include <deque>

namespace dlsim {

namespace {

class Fifo final : public Policy {
public:
  explicit Fifo(Placement placement) : placement_(placement) {}

  void on_arrival(JobId j, const View&) override { queue_.push_back(j); }

  void schedule(Control& control) override {
    while (!queue_.empty()) {
      auto devices = place(control, queue_.front(), placement_);
      if (!devices) return;
      control.start(queue_.front(), *devices);
      queue_.pop_front();
    }
  }

private:
  Placement placement_;
  std::deque<JobId> queue_;
};

} // namespace

std::unique_ptr<Policy> make_fifo(Placement placement) {
  return std::make_unique<Fifo>(placement);
}

} // namespace dlsim
