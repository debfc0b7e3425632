// The measurement window (summary.json `window`, docs/outputs.md#measurement-window): the JCT,
// queueing and slowdown figures over the jobs submitted in [report.measure_from_s,
// report.measure_to_s], every job still run (Gavel-style steady state).
#include "sim/report/summary_keys.h"
#include "sim/report/summary_metric.h"

#include <algorithm>

namespace dlsim {

namespace {

class WindowMetric final : public SummaryMetric {
public:
  explicit WindowMetric(const MetricSetup& setup) : setup_(setup) {}

  void write(nlohmann::ordered_json& summary, const RunEnd& end) const override {
    const Workload& w = *end.state.workload;
    // No upper end given: up to the last submission.
    const double to =
        setup_.measure_to_s >= 0 ? setup_.measure_to_s : to_seconds(w.jobs.back().request.submit);
    const WindowSummary x =
        summarize_window(end.state, end.result, std::max(setup_.measure_from_s, 0.0), to);
    nlohmann::ordered_json o;
    o["from_s"] = us_round(x.from_s);
    o["to_s"] = us_round(x.to_s);
    o["jobs"] = x.jobs;
    o["finished"] = x.finished;
    o["unfinished"] = x.unfinished;
    if (x.unfinished > 0) {
      o["jct_censored"] = x.jct_censored;
      o["queue_censored"] = x.queue_censored;
    }
    put_delay_stats(o, x);
    o["slowdown_mean"] = x.slowdown_mean;
    o["slowdown_max"] = x.slowdown_max;
    summary["window"] = std::move(o);
  }

private:
  MetricSetup setup_;
};

} // namespace

MetricEntry window_metric() {
  return {"window", [](const MetricSetup& setup) -> std::unique_ptr<SummaryMetric> {
            // Only with a measurement window, so that runs without one keep their bytes.
            if (setup.measure_from_s < 0 && setup.measure_to_s < 0) return nullptr;
            return std::make_unique<WindowMetric>(setup);
          }};
}

} // namespace dlsim
