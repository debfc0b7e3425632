// Peak pending: the most jobs waiting at once over the run, and when that was first reached
// (summary.json `peak_pending`). It watches the state the policy leaves after each decision,
// which holds until the next event.
#include "sim/report/summary_metric.h"

namespace dlsim {

namespace {

class PeakPendingMetric final : public SummaryMetric {
public:
  [[nodiscard]] bool observes_run() const override { return true; }

  void on_decided(const View& view) override {
    if (view.pending_count() <= jobs_) return; // the first time counts
    jobs_ = view.pending_count();
    at_ = view.now();
  }

  void write(nlohmann::ordered_json& summary, const RunEnd& /*end*/) const override {
    summary["peak_pending"] = {{"jobs", jobs_}, {"at_s", to_seconds(at_)}};
  }

private:
  std::uint32_t jobs_ = 0;
  SimTime at_ = 0;
};

} // namespace

MetricEntry peak_pending_metric() {
  return {"peak_pending", [](const MetricSetup&) { return std::make_unique<PeakPendingMetric>(); }};
}

} // namespace dlsim
