// Summary metrics: each is one file of sim/report/metrics/ that may watch the run as an observer,
// may see every job's final record, and adds its keys to summary.json after the run's own keys
// (summary.h). The list of them, in the order of their keys, is sim/report/metrics/metric_list.h
// (docs/architecture.md#a-summary-metric).
#pragma once

#include "sim/report/metrics.h"
#include "sim/report/summary.h"
#include "sim/runtime/simulation.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dlsim {

class FragMeter;

// What the experiment asks of the summary, and the meters a metric may read at the end.
struct MetricSetup {
  // report.measure_from_s / measure_to_s; -1 when not set (no measurement window).
  double measure_from_s = -1;
  double measure_to_s = -1;
  // The GPU-sharing meter when the run measures fragmentation (report.fragmentation); nullptr
  // otherwise. The caller owns it and adds it to the simulation: it also writes allocation.csv.
  const FragMeter* fragmentation = nullptr;
};

// The finished run, as a metric sees it when it writes its keys.
struct RunEnd {
  const SimState& state;
  const RunResult& result;
  const Summary& summary;        // the run's own keys, computed before any metric's
  const UtilizationMeter& meter; // device- and core-seconds integrated over the run
};

class SummaryMetric : public RunObserver {
public:
  // Whether the metric is added to the simulation as an observer (RunObserver's calls, and job
  // events if wants_job_events()). False for metrics that read only the run's end: the event
  // loop then pays nothing for them.
  [[nodiscard]] virtual bool observes_run() const { return false; }
  // Whether add_job is called for each job, in job id order, in summarize's one pass over the
  // final job records (a second pass over a million jobs' records costs more than the calls).
  [[nodiscard]] virtual bool wants_jobs() const { return false; }
  virtual void add_job(const SimState& /*state*/, std::size_t /*job*/) {}
  // Adds the metric's keys to summary.json, after the run's keys and the keys of the metrics
  // before it in the list. A metric that has nothing to say for this run adds none.
  virtual void write(nlohmann::ordered_json& summary, const RunEnd& end) const = 0;
};

struct MetricEntry {
  std::string name;
  // The metric for a run, or nullptr when the run does not measure it (no window, say).
  std::function<std::unique_ptr<SummaryMetric>(const MetricSetup&)> make;
};

// Every summary metric, in the order their keys come in summary.json.
const std::vector<MetricEntry>& summary_metrics();

// The metrics of one run: made from a list, added to the simulation, then fed the job pass and
// asked for their keys.
class MetricSet {
public:
  MetricSet(const std::vector<MetricEntry>& entries, const MetricSetup& setup);
  // Adds the metrics that observe the run to `sim`, in list order.
  void observe(Simulation& sim);
  // The metrics that want the job pass, in list order.
  [[nodiscard]] const std::vector<SummaryMetric*>& job_metrics() const { return job_metrics_; }
  // Every metric's keys, in list order.
  [[nodiscard]] nlohmann::ordered_json keys(const RunEnd& end) const;

private:
  std::vector<std::unique_ptr<SummaryMetric>> metrics_;
  std::vector<SummaryMetric*> job_metrics_;
};

} // namespace dlsim
