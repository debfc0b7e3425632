// Ordering GPU types for jobs that name none: fastest first, never one too small for the model.
#include "sim/runtime/gpu_types.h"

#include "sim/cluster/fit.h"

#include <algorithm>

namespace dlsim {

std::vector<std::vector<DeviceTypeId>> gpu_types_by_model(const Cluster& cluster,
                                                          const Workload& workload,
                                                          const std::vector<DeviceTypeId>& present,
                                                          const std::vector<double>& mem_gb) {
  const std::size_t models = std::max<std::size_t>(1, workload.models.size());
  const bool have_perf = workload.perf.type_count == cluster.types.size() &&
                         workload.perf.iter_time_s.size() >= models * workload.perf.type_count;
  std::vector<std::vector<DeviceTypeId>> out(models);
  for (std::size_t m = 0; m < models; ++m) {
    auto& types = out[m];
    for (DeviceTypeId t : present) {
      double cap = cluster.types[t].memory_gb;
      if (cap > 0 && !fits_in(mem_gb[m], cap)) continue;
      if (have_perf && !workload.perf.supports(static_cast<ModelId>(m), t)) continue;
      types.push_back(t);
    }
    // Seconds per iteration when the table has them, else 1 / relative throughput.
    auto cost = [&](DeviceTypeId t) {
      if (m > 0 && have_perf) return workload.perf.iter_time(static_cast<ModelId>(m), t);
      return 1.0 / std::max(1e-12, cluster.types[t].rel_throughput);
    };
    std::stable_sort(types.begin(), types.end(),
                     [&](DeviceTypeId a, DeviceTypeId b) { return cost(a) < cost(b); });
  }
  return out;
}

} // namespace dlsim
