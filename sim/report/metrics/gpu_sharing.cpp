// The GPU-sharing measures of the FGD paper (summary.json `gpu_sharing`,
// docs/fragmentation.md#measures), read from the run's fragmentation meter (frag_meter.h), which
// the run adds when report.fragmentation asks for it.
#include "sim/report/frag_meter.h"
#include "sim/report/summary_metric.h"

namespace dlsim {

namespace {

class GpuSharingMetric final : public SummaryMetric {
public:
  explicit GpuSharingMetric(const FragMeter& meter) : meter_(meter) {}

  void write(nlohmann::ordered_json& summary, const RunEnd& /*end*/) const override {
    double arrived = 0, allocated = 0, frag = 0;
    std::uint64_t unplaced = 0;
    if (!meter_.rows().empty()) { // the state after the last arrival's decision
      const SharingRow& last = meter_.rows().back();
      arrived = static_cast<double>(last.arrived_milli) / kMilli;
      allocated = static_cast<double>(last.allocated_milli) / kMilli;
      frag = last.frag_milli / kMilli;
      unplaced = last.unplaced_jobs;
    }
    // Allocated GPUs / the cluster's, in %, when the arrived workload was 100% and 130% of the
    // cluster's GPUs (FGD's per-1% buckets); -1 when the workload never reached it.
    double alloc_100 = -1, alloc_130 = -1, frag_100 = -1;
    for (const SharingBucket& b : meter_.buckets()) {
      if (b.arrived_pct == 100) {
        alloc_100 = b.alloc_pct;
        frag_100 = b.frag_pct;
      }
      if (b.arrived_pct == 130) alloc_130 = b.alloc_pct;
    }
    summary["gpu_sharing"] = {
        {"capacity_gpus", static_cast<double>(meter_.capacity_milli()) / kMilli},
        {"arrived_gpus", arrived},
        {"allocated_gpus", allocated},
        {"frag_gpus", frag},
        {"alloc_pct_at_100", alloc_100},
        {"alloc_pct_at_130", alloc_130},
        {"frag_pct_at_100", frag_100},
        {"unplaced_jobs", unplaced},
        {"typical_shapes", static_cast<std::uint64_t>(meter_.mix().shapes.size())}};
  }

private:
  const FragMeter& meter_;
};

} // namespace

MetricEntry gpu_sharing_metric() {
  return {"gpu_sharing", [](const MetricSetup& setup) -> std::unique_ptr<SummaryMetric> {
            // Only when measured, so that other runs keep their bytes.
            if (setup.fragmentation == nullptr) return nullptr;
            return std::make_unique<GpuSharingMetric>(*setup.fragmentation);
          }};
}

} // namespace dlsim
