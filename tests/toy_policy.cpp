// Smallest first: at every decision, start the waiting jobs with the fewest requested devices
// first, skipping any that does not fit (so, unlike sjf, a big job never blocks a small one),
// and never run more than `max_running` jobs at once (0 = no limit). Non-preemptive.
#include "tests/toy_policy.h"

#include <set>
#include <utility>

namespace dlsim {

namespace {

class SmallestFirst final : public Policy {
public:
  SmallestFirst(Placement placement, std::uint32_t max_running)
      : placement_(placement), max_running_(max_running) {}

  void on_arrival(JobId j, const View& view) override {
    waiting_.emplace(view.request(j).devices(), j);
  }
  void on_finish(JobId, const View&) override { --running_; }

  void schedule(Control& control) override {
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if (max_running_ > 0 && running_ >= max_running_) return;
      auto devices = place(control, it->second, placement_);
      if (!devices) {
        ++it; // does not fit now: try the next, larger job
        continue;
      }
      control.start(it->second, *devices);
      ++running_;
      it = waiting_.erase(it);
    }
  }

private:
  Placement placement_;
  std::uint32_t max_running_;
  std::uint32_t running_ = 0;
  std::set<std::pair<std::uint32_t, JobId>> waiting_; // (devices, id): ties to the earlier job
};

} // namespace

PolicyEntry smallest_first_policy() {
  return {"smallest-first",
          "fewest requested devices first, skipping jobs that do not fit; non-preemptive",
          false,
          {{"max_running", ParamType::kNumber, "0", "most jobs running at once (0 = no limit)",
            ParamRange{0.0, 1e6, false, true}}}, // checked before make: a whole number, 0 to 1e6
          [](const PolicySetup& s) {
            const auto max_running = static_cast<std::uint32_t>(s.params.number("max_running"));
            return std::make_unique<SmallestFirst>(s.placement, max_running);
          }};
}

} // namespace dlsim
