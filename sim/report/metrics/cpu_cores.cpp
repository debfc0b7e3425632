// Node CPU cores held by every job (GPU jobs' cpus_per_worker too) over the cores the cluster has,
// over the makespan (summary.json `cpu_cores`, docs/outputs.md): written only when the workload
// has host tasks (jobs of 0 devices per worker), so that other runs keep their bytes.
#include "sim/report/summary_metric.h"

namespace dlsim {

namespace {

class CpuCoresMetric final : public SummaryMetric {
public:
  [[nodiscard]] bool wants_jobs() const override { return true; }

  void add_job(const SimState& s, std::size_t j) override {
    host_tasks_ += is_host_task(s.workload->jobs[j].request) ? 1 : 0;
  }

  void write(nlohmann::ordered_json& summary, const RunEnd& end) const override {
    if (host_tasks_ == 0) return;
    double cores = 0;
    for (const Node& n : end.state.cluster->nodes)
      cores += n.cpu_cores;
    const double avail = cores * end.summary.makespan_s;
    summary["cpu_cores"] = {{"host_tasks", host_tasks_},
                            {"cores", cores},
                            {"alloc", avail > 0 ? end.meter.held_core_s() / avail : 0.0}};
  }

private:
  std::uint64_t host_tasks_ = 0;
};

} // namespace

MetricEntry cpu_cores_metric() {
  return {"cpu_cores", [](const MetricSetup&) { return std::make_unique<CpuCoresMetric>(); }};
}

} // namespace dlsim
