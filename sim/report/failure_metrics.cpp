#include "sim/report/failure_metrics.h"

#include "sim/report/seconds_text.h"

namespace dlsim {

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

char* write_failure_columns(char* p, const JobFailures& f) {
  *p++ = ',';
  p = write_uint(p, f.failures);
  *p++ = ',';
  p = write_seconds(p, f.lost);
  *p++ = ',';
  p = write_uint(p, f.checkpoints);
  *p++ = ',';
  p = write_seconds(p, f.ckpt_time);
  *p++ = ',';
  p = write_seconds(p, f.restart_time);
  return p;
}

} // namespace dlsim
