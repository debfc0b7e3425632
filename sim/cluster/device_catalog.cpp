#include "sim/cluster/device_catalog.h"

namespace dlsim {

std::string_view to_string(DeviceKind kind) {
  auto k = static_cast<std::size_t>(kind);
  return k < kDeviceKinds ? kDeviceKindNames[k].name : "?";
}

std::optional<DeviceKind> parse_device_kind(std::string_view text) {
  for (std::size_t k = 0; k < kDeviceKinds; ++k) {
    if (kDeviceKindNames[k].name == text) return static_cast<DeviceKind>(k);
  }
  return std::nullopt;
}

std::vector<DeviceType> builtin_device_types() {
  // rel_throughput: ResNet-50 training throughput relative to a V100, taken from the model
  // zoo's ResNet-50 row (V100 time / device time; sources in docs/models.md), so the catalog and
  // the zoo agree. The zoo's ResNet-50 on a CPU socket is measured, its Xeon Phi and FPGA rows
  // are derived (docs/models.md, "Non-GPU devices"): 0.128 s / 0.783 s, / 0.452 s and / 2.87 s.
  // Peaks from the vendors' datasheets.
  return {
      {"K80", DeviceKind::kGpu, 12, 4.37, 0.16,
       "NVIDIA Tesla K80 datasheet (8.73 TFLOPS FP32 boost per board of two GK210; one GPU = "
       "half)"},
      {"P100", DeviceKind::kGpu, 16, 9.3, 0.62, "NVIDIA Tesla P100 PCIe datasheet"},
      {"V100", DeviceKind::kGpu, 16, 15.7, 1.0, "NVIDIA Tesla V100 SXM2 datasheet"},
      {"T4", DeviceKind::kGpu, 16, 8.1, 0.57, "NVIDIA T4 datasheet"},
      {"A100", DeviceKind::kGpu, 40, 19.5, 2.56, "NVIDIA A100 40GB datasheet"},
      {"H100", DeviceKind::kGpu, 80, 67.0, 4.13, "NVIDIA H100 SXM5 datasheet"},
      {"XeonCPU", DeviceKind::kCpu, 0, 3.0, 0.163,
       "Intel Xeon Gold 6148 socket: 20 cores x 2.4 GHz x 64 FP32 FLOP/cycle (AVX-512, 2 FMA)"},
      {"XeonPhi", DeviceKind::kXeonPhi, 16, 6.1, 0.283,
       "Intel Xeon Phi 7250 (Knights Landing) datasheet: 68 cores, 16 GB MCDRAM"},
      {"FPGA", DeviceKind::kFpga, 8, 1.4, 0.0446,
       "Intel Arria 10 GX 1150 PAC: 1.37 TFLOPS FP32 (hard floating-point DSPs), 8 GB DDR4"},
      // The two GPUs of Yeung et al., HotCloud'20 (docs/utilization.md). No same-harness
      // ResNet-50 measurement against the V100 is bundled, so rel_throughput is the ratio of
      // FP32 peaks (8.87 / 15.7 and 10.07 / 15.7), an estimate.
      {"GTX1080", DeviceKind::kGpu, 8, 8.87, 0.565,
       "NVIDIA GeForce GTX 1080 (Pascal GP104): 2560 CUDA cores x 1733 MHz boost x 2 = 8.87 "
       "TFLOPS FP32, 8 GB GDDR5X"},
      {"RTX2080", DeviceKind::kGpu, 8, 10.07, 0.641,
       "NVIDIA GeForce RTX 2080 (Turing TU104): 2944 CUDA cores x 1710 MHz boost x 2 = 10.07 "
       "TFLOPS FP32, 8 GB GDDR6"},
  };
}

std::optional<DeviceTypeId> find_device_type(const std::vector<DeviceType>& types,
                                             std::string_view name) {
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i].name == name) return static_cast<DeviceTypeId>(i);
  }
  return std::nullopt;
}

} // namespace dlsim
