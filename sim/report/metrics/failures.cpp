// What failures and checkpoints cost the run (summary.json `failures`,
// docs/failures.md#measures), from the failure state the runtime kept per job.
#include "sim/report/failure_metrics.h"
#include "sim/report/summary_keys.h"
#include "sim/report/summary_metric.h"

namespace dlsim {

namespace {

class FailuresMetric final : public SummaryMetric {
public:
  void write(nlohmann::ordered_json& summary, const RunEnd& end) const override {
    // Only with failures or checkpoints, so that other runs keep their bytes.
    if (!end.state.failures.any()) return;
    const FailureSummary f = summarize_failures(end.state, end.result.end);
    summary["failures"] = {{"components_failed", f.components_failed},
                           {"interruptions", f.interruptions},
                           {"jobs_interrupted", f.jobs_interrupted},
                           {"checkpoints", f.checkpoints},
                           {"checkpoint_s", us_round(f.checkpoint_s)},
                           {"work_lost_s", us_round(f.work_lost_s)},
                           {"work_lost_gpu_s", us_round(f.work_lost_gpu_s)},
                           {"restart_s", us_round(f.restart_s)},
                           {"restart_gpu_s", us_round(f.restart_gpu_s)},
                           {"goodput_lost_gpu_s", us_round(f.goodput_lost_gpu_s)},
                           {"ettr", f.ettr},
                           {"gpu_availability", f.gpu_availability}};
  }
};

} // namespace

MetricEntry failures_metric() {
  return {"failures", [](const MetricSetup&) { return std::make_unique<FailuresMetric>(); }};
}

} // namespace dlsim
