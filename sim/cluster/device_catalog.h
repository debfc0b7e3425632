// Device types: the built-in catalog of accelerators and processors, with public specs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

using DeviceTypeId = std::uint16_t;

enum class DeviceKind : std::uint8_t { kGpu, kCpu, kXeonPhi, kFpga };
inline constexpr std::size_t kDeviceKinds = 4; // the values of DeviceKind, for arrays by kind

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
