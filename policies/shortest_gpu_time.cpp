// Shortest GPU time first (an oracle baseline): a job's size is its true duration times the
// devices it requests, so a short job on many GPUs no longer counts as small. Non-preemptive and
// in strict order by default, like `sjf`; with `preemptive: true` it orders by remaining GPU time
// and suspends larger running jobs, which is the SRSF baseline of Tiresias (Gu et al., NSDI'19,
// section 6.1: "shortest-remaining-service-first").
#include "policies/shortest_gpu_time.h"

#include "policies/priority_pass.h"

#include <set>
#include <utility>

namespace dlsim {

namespace {

double gpu_time(const View& view, JobId j, bool remaining) {
  double s = remaining ? view.oracle_remaining_s(j) : view.oracle_total_s(j);
  return s * static_cast<double>(view.request(j).devices());
}

class ShortestGpuTime final : public Policy {
public:
  explicit ShortestGpuTime(Placement placement) : placement_(placement) {}

  void on_arrival(JobId j, const View& view) override {
    waiting_.emplace(gpu_time(view, j, false), j);
  }

  void schedule(Control& control) override {
    while (!waiting_.empty()) {
      JobId j = waiting_.begin()->second;
      auto devices = place(control, j, placement_);
      if (!devices) return; // strict: the smallest waiting job blocks the larger ones
      control.start(j, *devices);
      waiting_.erase(waiting_.begin());
    }
  }

private:
  Placement placement_;
  std::set<std::pair<double, JobId>> waiting_; // (GPU-seconds, id): ties to the earlier job
};

class ShortestRemainingGpuTime final : public Policy {
public:
  explicit ShortestRemainingGpuTime(Placement placement) : placement_(placement) {}

  void on_arrival(JobId j, const View& view) override {
    if (keys_.size() < view.job_count()) keys_.resize(view.job_count());
    keys_[j] = {gpu_time(view, j, false), j};
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
          for (const auto& [size, j] : order_) {
            if (!offer(j)) break;
          }
        },
        holders_);
    pass_.apply(control, placement_, holders_);
  }

private:
  void rekey(const View& view, JobId j) {
    order_.erase(keys_[j]);
    keys_[j] = {gpu_time(view, j, true), j};
    order_.insert(keys_[j]);
  }

  Placement placement_;
  PriorityPass pass_; // its buffers are reused from one decision to the next
  std::vector<std::pair<double, JobId>> keys_;
  std::set<std::pair<double, JobId>> order_;
  std::set<JobId> holders_;
};

} // namespace

std::unique_ptr<Policy> make_shortest_gpu_time(Placement placement, bool preemptive) {
  if (preemptive) return std::make_unique<ShortestRemainingGpuTime>(placement);
  return std::make_unique<ShortestGpuTime>(placement);
}

} // namespace dlsim
