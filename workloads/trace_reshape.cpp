#include "workloads/trace_reshape.h"

#include "sim/engine/error.h"
#include "workloads/device_type_set.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dlsim {

namespace {

// The most devices a single node holds of one of the accepted types (a worker's devices are of
// one type on one node); 0 when the choice does not parse.
std::uint32_t node_capacity(const DeviceTypeChoice& choice, const Cluster& cluster) {
  if (!choice.error.empty()) return 0;
  std::uint32_t best = 0;
  if (choice.any_gpu) {
    for (std::size_t t = 0; t < cluster.types.size(); ++t) {
      if (cluster.types[t].kind == DeviceKind::kGpu)
        best = std::max(best, cluster.max_per_node(static_cast<DeviceTypeId>(t)));
    }
    return best;
  }
  for (DeviceTypeId t : choice.types)
    best = std::max(best, cluster.max_per_node(t));
  return best;
}

} // namespace

OversizedWorkers::OversizedWorkers(const Trace& trace, const Cluster& cluster)
    : any_gpu_(
          node_capacity(DeviceTypeChoice{.any_gpu = true, .types = {}, .error = {}}, cluster)) {
  const auto& names = trace.device_types.names();
  by_text_.reserve(names.size());
  for (const auto& name : names)
    by_text_.push_back(node_capacity(parse_device_type_choice(name, cluster), cluster));
}

std::size_t count_oversized_workers(const Trace& trace, const Cluster& cluster) {
  const OversizedWorkers oversized(trace, cluster);
  return static_cast<std::size_t>(std::count_if(trace.jobs.begin(), trace.jobs.end(), oversized));
}

ReshapeReport reshape_to_nodes(Trace& trace, const Cluster& cluster) {
  const OversizedWorkers oversized(trace, cluster);
  ReshapeReport report;
  for (TraceJob& job : trace.jobs) {
    if (!oversized(job)) continue;
    const std::uint32_t cap = oversized.capacity(job);
    const std::uint32_t d = job.devices_per_worker;
    // The smallest split k (a divisor of d) whose workers of d / k devices fit a node.
    std::uint32_t k = (d + cap - 1) / cap;
    while (d % k != 0)
      ++k;
    if (static_cast<std::uint64_t>(std::max(job.workers, job.max_workers)) * k > UINT32_MAX) {
      throw InputError(fmt::format("{}:{}: trace.reshape: {} workers split {} ways is more than "
                                   "4,294,967,295 workers",
                                   trace.file, job.line, std::max(job.workers, job.max_workers),
                                   k));
    }
    if (report.reshaped == 0) {
      report.first_example =
          fmt::format("job {}: {} x {} -> {} x {} (a node holds at most {})", trace.name(job),
                      job.workers, d, job.workers * k, d / k, cap);
    }
    job.workers *= k;
    job.devices_per_worker = d / k;
    job.cpus_per_worker /= k;
    job.mem_gb_per_worker /= k;
    job.min_workers *= k;
    job.max_workers *= k;
    ++report.reshaped;
  }
  return report;
}

} // namespace dlsim
