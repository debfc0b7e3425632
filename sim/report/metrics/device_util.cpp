// Utilization per device kind and type (summary.json util_by_kind and util_by_type,
// docs/outputs.md#utilization): the device-seconds the utilization meter integrated, over the
// devices times the makespan.
#include "sim/report/summary_metric.h"

#include <array>

namespace dlsim {

namespace {

struct DeviceUtil {
  std::uint32_t devices = 0;
  double alloc = 0;     // allocated device-seconds / (devices x makespan_s)
  double effective = 0; // effective (useful) device-seconds / (devices x makespan_s)
};

class DeviceUtilMetric final : public SummaryMetric {
public:
  // Per type, then per kind as the sums over its types. The GPU kind repeats gpu_util_* exactly
  // (the same integrals, summed in another order they could differ in the last bits).
  void write(nlohmann::ordered_json& summary, const RunEnd& end) const override {
    const SimState& s = end.state;
    const Cluster& c = *s.cluster;
    const double makespan_s = end.summary.makespan_s;
    auto share = [&](double device_s, std::uint32_t devices) {
      double avail = static_cast<double>(devices) * makespan_s;
      return avail > 0 ? device_s / avail : 0.0;
    };
    std::array<DeviceUtil, kDeviceKinds> kinds{};
    nlohmann::ordered_json types = nlohmann::ordered_json::object();
    // A cluster has at most 65,536 device types (cluster_yaml.cpp refuses more), so the cast is
    // exact.
    for (std::size_t i = 0; i < c.types.size(); ++i) {
      const auto t = static_cast<DeviceTypeId>(i);
      std::uint32_t n = s.devices_of_type[t];
      if (n == 0) continue;
      DeviceKind kind = c.types[t].kind;
      types[c.types[t].name] = {{"kind", to_string(kind)},
                                {"devices", n},
                                {"alloc", share(end.meter.allocated_s(t), n)},
                                {"effective", share(end.meter.effective_s(t), n)}};
      DeviceUtil& k = kinds[static_cast<std::size_t>(kind)];
      k.devices += n;
      k.alloc += end.meter.allocated_s(t); // device-seconds until divided below
      k.effective += end.meter.effective_s(t);
    }
    nlohmann::ordered_json by_kind = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < kDeviceKinds; ++i) {
      DeviceUtil k = kinds[i];
      if (k.devices == 0) continue;
      const auto kind = static_cast<DeviceKind>(i);
      if (kind == DeviceKind::kGpu) {
        k.alloc = end.summary.gpu_util_alloc;
        k.effective = end.summary.gpu_util_effective;
      } else {
        k.alloc = share(k.alloc, k.devices);
        k.effective = share(k.effective, k.devices);
      }
      by_kind[std::string(to_string(kind))] = {
          {"devices", k.devices}, {"alloc", k.alloc}, {"effective", k.effective}};
    }
    summary["util_by_kind"] = std::move(by_kind);
    summary["util_by_type"] = std::move(types);
  }
};

} // namespace

MetricEntry device_util_metric() {
  return {"device_util", [](const MetricSetup&) { return std::make_unique<DeviceUtilMetric>(); }};
}

} // namespace dlsim
