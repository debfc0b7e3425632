// What failures and checkpoints cost the run (summary.json `failures`,
// docs/failures.md#measures), from the failure state the runtime kept per job.
#include "sim/report/summary_keys.h"
#include "sim/report/summary_metric.h"

namespace dlsim {

namespace {

struct FailureSummary {
  std::uint64_t components_failed = 0; // failures applied (devices, nodes, links)
  std::uint64_t interruptions = 0;     // jobs stopped by them, a job once per failure
  std::uint64_t jobs_interrupted = 0;  // jobs stopped at least once
  std::uint64_t checkpoints = 0;
  double work_lost_s = 0;        // run time whose work was lost, summed over jobs
  double work_lost_gpu_s = 0;    // the same times each job's devices
  double restart_s = 0;          // time spent restarting after failures
  double restart_gpu_s = 0;      // the same times each job's devices
  double goodput_lost_gpu_s = 0; // work_lost_gpu_s + restart_gpu_s
  double checkpoint_s = 0;       // time spent writing checkpoints
  // Effective training time ratio: the run time whose work was kept over the wall time from
  // each job's first start to its end (or the end of the run), summed over the jobs that started.
  double ettr = 0;
  // 1 - GPU-seconds down / (GPUs x the run's length): the share of GPU time that was usable.
  double gpu_availability = 1;
};

FailureSummary summarize_failures(const SimState& s, SimTime end) {
  FailureSummary out;
  const FailureState& fs = s.failures;
  out.components_failed = fs.happened.size();
  out.interruptions = fs.interruptions;
  double useful = 0;
  double held = 0;
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    const JobState& job = s.jobs[j];
    const JobFailures& f = fs.jobs[j];
    const double devices = s.workload->jobs[j].request.devices();
    if (f.failures > 0) ++out.jobs_interrupted;
    out.checkpoints += f.checkpoints;
    out.work_lost_s += to_seconds(f.lost);
    out.work_lost_gpu_s += to_seconds(f.lost) * devices;
    out.restart_s += to_seconds(f.restart_time);
    out.restart_gpu_s += to_seconds(f.restart_time) * devices;
    out.checkpoint_s += to_seconds(f.ckpt_time);
    if (job.first_start < 0) continue;
    useful += to_seconds(job.run_time - f.lost);
    held += to_seconds((job.end >= 0 ? job.end : end) - job.first_start);
  }
  out.goodput_lost_gpu_s = out.work_lost_gpu_s + out.restart_gpu_s;
  out.ettr = held > 0 ? useful / held : 0;
  const double gpu_s = static_cast<double>(s.gpu_count) * to_seconds(end);
  out.gpu_availability = gpu_s > 0 ? 1 - fs.gpu_down_seconds / gpu_s : 1;
  return out;
}

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
