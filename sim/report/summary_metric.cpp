#include "sim/report/summary_metric.h"

#include "sim/report/metrics/metric_list.h"

namespace dlsim {

// Each metric's file defines its entry; the list names each once.
#define DLSIM_DECLARE_METRIC(name) MetricEntry name##_metric();
DLSIM_SUMMARY_METRICS(DLSIM_DECLARE_METRIC)
#undef DLSIM_DECLARE_METRIC

const std::vector<MetricEntry>& summary_metrics() {
#define DLSIM_METRIC_ENTRY(name) name##_metric(),
  static const std::vector<MetricEntry> entries = {DLSIM_SUMMARY_METRICS(DLSIM_METRIC_ENTRY)};
#undef DLSIM_METRIC_ENTRY
  return entries;
}

MetricSet::MetricSet(const std::vector<MetricEntry>& entries, const MetricSetup& setup) {
  for (const MetricEntry& e : entries) {
    std::unique_ptr<SummaryMetric> m = e.make(setup);
    if (m == nullptr) continue;
    if (m->wants_jobs()) job_metrics_.push_back(m.get());
    metrics_.push_back(std::move(m));
  }
}

void MetricSet::observe(Simulation& sim) {
  for (const auto& m : metrics_) {
    if (m->observes_run()) sim.add_observer(m.get());
  }
}

nlohmann::ordered_json MetricSet::keys(const RunEnd& end) const {
  nlohmann::ordered_json keys = nlohmann::ordered_json::object();
  for (const auto& m : metrics_)
    m->write(keys, end);
  return keys;
}

} // namespace dlsim
