#include "workloads/trace_inflate.h"

#include "sim/engine/error.h"
#include "sim/engine/rng.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

namespace dlsim {

std::string InflateReport::line() const {
  return fmt::format("inflated to {:.3f} of the cluster's GPUs (trace.inflate): {} jobs asking "
                     "{:.1f} GPUs, {} added, {} removed: {} jobs asking {:.1f} GPUs of {}, "
                     "arriving 1 s apart",
                     static_cast<double>(milli_after) / static_cast<double>(capacity_milli), read,
                     static_cast<double>(milli_before) / 1000, added, removed,
                     read + added - removed, static_cast<double>(milli_after) / 1000,
                     capacity_milli / 1000);
}

namespace {

std::int64_t milli_per_device(const TraceJob& job) {
  if (job.devices_per_worker == 0) return 0;
  return job.gpu_share_min < 1 ? std::llround(job.gpu_share_min * 1000) : 1000;
}

} // namespace

std::int64_t gpu_request_milli(const TraceJob& job) {
  return static_cast<std::int64_t>(job.workers) * job.devices_per_worker * milli_per_device(job);
}

InflateReport inflate_trace(Trace& trace, double tune, std::uint32_t gpus, std::uint64_t seed) {
  if (!(tune > 0) || !std::isfinite(tune)) {
    throw InputError(fmt::format("trace.inflate: must be a number above 0, got {}", tune));
  }
  if (gpus == 0) {
    throw InputError("trace.inflate: the cluster has no GPU to inflate the workload to");
  }
  InflateReport r;
  r.read = trace.jobs.size();
  r.capacity_milli = static_cast<std::int64_t>(gpus) * 1000;
  const double target = tune * static_cast<double>(r.capacity_milli);
  Rng rng = Rng::stream(seed, "trace.inflate");
  std::vector<TraceJob>& jobs = trace.jobs;
  shuffle(std::span(jobs), rng);
  std::int64_t total = 0;
  for (const TraceJob& j : jobs)
    total += gpu_request_milli(j);
  r.milli_before = total;
  if (total == 0) throw InputError("trace.inflate: no job of the trace asks for a GPU");
  if (static_cast<double>(total) < target) {
    // Drawn from the jobs as read (shuffled, which does not change a uniform draw).
    const std::size_t n = jobs.size();
    for (std::size_t k = 0;; ++k) {
      const TraceJob drawn = jobs[rng.below(n)];
      if (static_cast<double>(total + milli_per_device(drawn)) > target) break;
      total += gpu_request_milli(drawn);
      const std::string name = fmt::format("{}-tuned-{}", trace.name(drawn), k);
      trace.add(drawn, name);
      ++r.added;
    }
  } else {
    while (static_cast<double>(total) > target && !jobs.empty()) {
      const std::size_t i = rng.below(jobs.size());
      total -= gpu_request_milli(jobs[i]);
      jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(i));
      ++r.removed;
    }
  }
  r.milli_after = total;
  if (jobs.empty()) throw InputError("trace.inflate: no job is left");
  const std::size_t n = jobs.size();
  for (std::size_t i = 0; i < n; ++i) {
    TraceJob& j = jobs[i];
    j.submit_s = static_cast<double>(i);
    j.duration_s = static_cast<double>(n - i);
    j.iterations = -1;
    j.curve = 0;
  }
  trace.in_submit_order = true;
  return r;
}

} // namespace dlsim
