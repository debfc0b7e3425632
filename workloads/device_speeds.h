// Per-model iteration times on the device types without per-model training measurements (a Xeon
// Phi 7250, a Xeon Gold 6148 socket), derived from measured kernel times: a model's V100 time
// times its layer mix over the device-to-V100 time ratios of the kernels Baidu DeepBench timed on
// both (configs/devices/deepbench-train.csv). The rule, its sources and its held-out error are
// in docs/models.md#non-gpu-devices; `dlsim calibrate` prints a fresh derivation.
#pragma once

#include "workloads/model_zoo.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace dlsim {

// One kernel DeepBench timed in training (forward and backward passes) on every device type of
// the file, in milliseconds.
struct KernelTime {
  std::string kind; // "conv" or "gemm"
  std::string shape;
  long n = 0; // a GEMM's N (the rows one call sees), a convolution's batch
  double xeon_phi_ms = 0;
  double v100_ms = 0;
  double p100_ms = 0;
};

// Reads the kernel file (columns kind,shape,n,XeonPhi_ms,V100_ms,P100_ms). A bad row is an
// InputError naming file:line: column.
std::vector<KernelTime> load_kernel_times(const std::string& file);

// A GEMM is narrow when one call sees at most this many rows: the batch of one recurrent time
// step or of a fully connected layer at DeepBench's training batch sizes (16 to 128).
inline constexpr long kNarrowGemmMaxN = 128;

// Geometric means of device time / V100 time over a kernel class.
struct KernelRatios {
  double conv = 0;
  double gemm_narrow = 0; // GEMMs with N <= kNarrowGemmMaxN
  double gemm_wide = 0;   // the others
};

enum class KernelDevice { kXeonPhi, kP100 };

// The ratios of one measured device of the file. An InputError when a class has no kernel.
KernelRatios kernel_ratios(const std::vector<KernelTime>& kernels, KernelDevice device);

// A model's layer mix: the share of its layers that are convolutions (the rest are GEMMs:
// fully connected layers and the linear maps of recurrent ones), and whether its GEMMs are
// narrow. Shares count layers of the zoo's `graph`, each layer weighing alike.
struct LayerMix {
  double conv = 0;
  double gemm = 0;
  bool narrow_gemm = false;
};

// nullopt for a model without `graph` counts or with no conv or linear layer. A model's GEMMs
// see batch_size rows per call (a fully connected layer over the batch, a recurrent step),
// except a transformer's, which see every token of the batch (hundreds to thousands).
std::optional<LayerMix> layer_mix(const ModelInfo& model);

// Σ share × class ratio: the model's device time / V100 time.
double mix_ratio(const LayerMix& mix, const KernelRatios& ratios);

// One Xeon Gold 6148 socket takes this many times a Xeon Phi 7250's time: Dell EMC measured a
// Phi node as fast as a 2-socket Xeon Platinum 8168 node in Intel Caffe ResNet-50 training,
// and the Gold 6148 within 5% of the Platinum 8168 (docs/models.md#non-gpu-devices, [24]).
inline constexpr double kSocketPerPhi = 2.0;

// A memory-bound model (family `recommendation`: embedding lookups) scales by memory bandwidth
// instead: V100 900 GB/s, a socket's six DDR4-2666 channels 128 GB/s, the Phi's MCDRAM 450 GB/s
// ([22], [23] of the zoo).
inline constexpr double kV100BandwidthGBs = 900;
inline constexpr double kSocketBandwidthGBs = 128;
inline constexpr double kPhiBandwidthGBs = 450;

// A published end-to-end training throughput of a zoo model on XeonPhi or XeonCPU devices
// (configs/devices/measured-models.csv): `samples_per_s` over `devices` devices of the type,
// taken as shared evenly, so one device runs at samples_per_s / devices.
struct MeasuredSpeed {
  std::string model;
  std::string device_type; // XeonPhi or XeonCPU
  double samples_per_s = 0;
  double devices = 1;
  double batch_size = 0; // the measurement's, for the record
  std::string source;
};

// Reads the measurement file (columns model,device_type,samples_per_s,devices,batch_size,
// source). A bad row, or a model and type given twice, is an InputError naming file:line.
std::vector<MeasuredSpeed> load_measured_speeds(const std::string& file);

// The seconds per iteration at `batch_size` that a measurement gives one device.
double measured_iteration_s(const MeasuredSpeed& m, double batch_size);

// A model's iteration times on XeonPhi and XeonCPU, rounded to the three significant digits the
// zoo keeps: a measurement of the model on the type where `measured` has one, else the rule
// from its V100 time (the layer mix for the Phi, kSocketPerPhi x that for a socket, bandwidth
// for a memory-bound model). nullopt when the model has no V100 time or no mix.
struct DerivedDeviceTimes {
  double xeon_phi_s = 0;
  double xeon_cpu_s = 0;
  bool phi_measured = false;
  bool cpu_measured = false;
};
std::optional<DerivedDeviceTimes> derive_device_times(const ModelInfo& model,
                                                      const KernelRatios& phi,
                                                      const std::vector<MeasuredSpeed>& measured);

// The held-out check of the layer-mix rule: for each measured model of `measured` (Gavel's
// configs/models/gavel.yaml) of an architecture the zoo has, the rule's P100 / V100 time ratio
// from DeepBench's P100 kernels against the measured one. The measured model borrows the graph
// counts of the zoo model of its architecture (Gavel's ResNet-18, ResNet-50, Transformer and LM
// are the zoo's resnet18, resnet50, transformer and lstm) and keeps its own batch size.
struct HeldOutRatio {
  std::string model;
  double predicted = 0;
  double measured = 0;
  [[nodiscard]] double error() const { return std::abs(predicted - measured) / measured; }
};
std::vector<HeldOutRatio> held_out_p100_ratios(const ModelZoo& measured, const ModelZoo& zoo,
                                               const KernelRatios& p100);

// x rounded to three significant digits.
double round3(double x);

} // namespace dlsim
