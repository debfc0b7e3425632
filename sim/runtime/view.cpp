#include "sim/runtime/view.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace dlsim {

const SimState& View::raw() const {
  if (!observer_ && !oracle_) {
    throw ActionError(
        "a non-oracle policy asked for the raw state (it holds the jobs' true lengths)");
  }
  return s_;
}

void View::refuse_future(JobId j) const {
  throw ActionError(fmt::format("the policy read job {} ('{}') before its submission at {:g} s "
                                "(now {:g} s): a scheduler learns of a job when it is submitted",
                                j, s_.workload->jobs[j].name,
                                to_seconds(s_.workload->jobs[j].request.submit),
                                to_seconds(s_.now)));
}

double View::measured_iteration_s(JobId j) const {
  const JobState& job = s_.jobs[j];
  return job.status == JobStatus::kRunning && job.rate > 0 ? 1.0 / job.rate : 0.0;
}

std::optional<double> View::measured_gpu_util(JobId j) const {
  const JobState& job = s_.jobs[j];
  SimTime alone = job.alone_time + (job.alone_since >= 0 ? s_.now - job.alone_since : 0);
  if (job.status == JobStatus::kFuture || to_seconds(alone) < s_.config.profile_s) return {};
  return s_.workload->jobs[j].request.gpu_util;
}

std::span<const DeviceTypeId> View::compatible_types(JobId j) const {
  const JobRequest& req = request(j);
  std::int32_t t = req.device_type;
  if (t == kAnyGpu) return s_.gpu_types_for_model[req.model];
  if (t == kTypeSet)
    return s_.set_types_for_model[req.type_set * s_.gpu_types_for_model.size() + req.model];
  return std::span<const DeviceTypeId>(s_.all_type_ids).subspan(static_cast<std::size_t>(t), 1);
}

std::uint32_t View::workers_fitting_on(JobId j, NodeId n, DeviceTypeId t) const {
  const JobRequest& req = request(j);
  std::uint32_t k = s_.free.free_on(n, t) / req.devices_per_worker;
  if (req.cpus_per_worker > 0) {
    k = std::min(k, static_cast<std::uint32_t>((s_.node_cpu_free[n] + 1e-9) / req.cpus_per_worker));
  }
  if (req.mem_gb_per_worker > 0) {
    k = std::min(k,
                 static_cast<std::uint32_t>((s_.node_mem_free[n] + 1e-9) / req.mem_gb_per_worker));
  }
  return k;
}

double View::oracle_total_s(JobId j) const {
  if (!oracle_) throw ActionError("a non-oracle policy asked for a job's true duration");
  const JobSpec& spec = s_.workload->jobs[j];
  return spec.iterations *
         s_.workload->perf.iter_time(spec.request.model, s_.workload->reference_device);
}

double View::oracle_remaining_s(JobId j) const {
  if (!oracle_) throw ActionError("a non-oracle policy asked for a job's true remaining time");
  const JobSpec& spec = s_.workload->jobs[j];
  const JobState& job = s_.jobs[j];
  double left = std::max(0.0, spec.iterations - done_at(job, s_.now));
  return left * s_.workload->perf.iter_time(spec.request.model, s_.workload->reference_device);
}

} // namespace dlsim
