#include "policies/strict_order.h"

#include <set>
#include <utility>

namespace dlsim {

namespace {

class StrictOrder final : public Policy {
public:
  StrictOrder(Placement placement, ArrivalKey key) : placement_(placement), key_(std::move(key)) {}

  void on_arrival(JobId j, const View& view) override { waiting_.emplace(key_(view, j), j); }

  void schedule(Control& control) override {
    while (!waiting_.empty()) {
      JobId j = waiting_.begin()->second;
      auto devices = place(control, j, placement_);
      if (!devices) return; // strict: the first waiting job blocks the ones behind it
      control.start(j, *devices);
      waiting_.erase(waiting_.begin());
    }
  }

private:
  Placement placement_;
  ArrivalKey key_;
  std::set<std::pair<double, JobId>> waiting_; // (key, id)
};

} // namespace

std::unique_ptr<Policy> make_strict_order(Placement placement, ArrivalKey key) {
  return std::make_unique<StrictOrder>(placement, std::move(key));
}

} // namespace dlsim
