// Device types: the built-in catalog of accelerators and processors, with public specs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

using DeviceTypeId = std::uint16_t;

// A device kind is one value here and one row of kDeviceKindNames below; everything else
// (parsing, summary.json's util_by_kind, timeseries.csv's per-kind columns, arrays by kind)
// reads that table. Only the GPU kind has behaviour of its own (GPU counts, co-location).
enum class DeviceKind : std::uint8_t { kGpu, kCpu, kXeonPhi, kFpga };

// The words that name a kind in files, indexed by DeviceKind.
struct DeviceKindNames {
  std::string_view name;        // cluster YAML `kind:`, jobs.csv `device_kind`, util_by_kind
  std::string_view devices_col; // timeseries.csv: allocated_<devices_col>
  std::string_view util_col;    // timeseries.csv: effective_<util_col>_util
};
inline constexpr DeviceKindNames kDeviceKindNames[] = {
    {"gpu", "gpus", "gpu"},
    {"cpu", "cpus", "cpu"},
    {"xeonphi", "xeon_phis", "xeon_phi"},
    {"fpga", "fpgas", "fpga"},
};
// The values of DeviceKind, for arrays by kind.
inline constexpr std::size_t kDeviceKinds = std::size(kDeviceKindNames);
static_assert(static_cast<std::size_t>(DeviceKind::kFpga) + 1 == kDeviceKinds,
              "every DeviceKind has its row in kDeviceKindNames");

inline const DeviceKindNames& names_of(DeviceKind kind) {
  return kDeviceKindNames[static_cast<std::size_t>(kind)];
}
std::string_view to_string(DeviceKind kind);
std::optional<DeviceKind> parse_device_kind(std::string_view text);

struct DeviceType {
  std::string name;
  DeviceKind kind = DeviceKind::kGpu;
  double memory_gb = 0;        // device memory (GPU HBM/GDDR, MCDRAM, card DDR; socket: 0)
  double peak_fp32_tflops = 0; // vendor peak, FP32
  // DL training throughput relative to a V100 (ResNet-50-like work). Scales jobs that have no
  // per-model measurement for this device (docs/cluster.md gives the source of each value).
  double rel_throughput = 1.0;
  std::string source; // where the numbers come from
};

// The built-in catalog, in a fixed order (its index is the DeviceTypeId in a fresh catalog).
std::vector<DeviceType> builtin_device_types();

// Index of a type by exact name, or nullopt.
std::optional<DeviceTypeId> find_device_type(const std::vector<DeviceType>& types,
                                             std::string_view name);

} // namespace dlsim
