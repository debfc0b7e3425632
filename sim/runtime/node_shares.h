// The node model of Alibaba's GPU-sharing scheduler simulator (Weng et al., "Beware of
// Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX
// ATC'23; hkust-adsl/kubernetes-scheduler-simulator) over dlsim's state: what a node has free in
// CPU milli-cores, memory and per-GPU milli-GPUs, the shape of a job as that model sees it, and
// the paper's fragmentation measure. Plain data and free functions, read by the placement
// scorers (policies/scoring/) and by the fragmentation meter (sim/report/frag_meter.h)
// (docs/fragmentation.md).
#pragma once

#include "sim/runtime/view.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace dlsim {

inline constexpr std::int32_t kMilli = 1000; // one whole GPU, in milli-GPUs

// A job's request per worker as FGD's model sees it: CPU milli-cores, and either `gpus` whole
// GPUs (gpu_milli 1000), a share of one GPU (gpus 1, gpu_milli < 1000) or no GPU (a host task:
// gpus 0, gpu_milli 0). `types`: the GPU types it accepts, one bit per DeviceTypeId.
struct PodShape {
  std::int32_t cpu_milli = 0;
  std::int32_t gpu_milli = 0; // per GPU
  std::uint32_t gpus = 0;
  std::uint64_t types = 0;
  double mem_gb = 0; // checked for feasibility; FGD's shapes and scores ignore memory
  friend bool operator==(const PodShape& a, const PodShape& b) {
    return a.cpu_milli == b.cpu_milli && a.gpu_milli == b.gpu_milli && a.gpus == b.gpus &&
           a.types == b.types;
  }
  [[nodiscard]] std::int64_t total_gpu_milli() const {
    return static_cast<std::int64_t>(gpus) * gpu_milli;
  }
  [[nodiscard]] bool is_share() const { return gpus == 1 && gpu_milli < kMilli; }
};

// The most GPUs on one node this model handles (a larger node is an InputError from
// check_node_shares): FGD's clusters have at most 8.
inline constexpr std::uint32_t kMaxNodeGpus = 16;

// One node's free resources. GPU g: `left[g]` milli-GPUs not held, and whether another share may
// join it (`open`): not when a holder is not under the share controller (a whole-GPU job, a
// Gandiva pack) or when it already holds DeviceSlot::kMaxShare jobs. Only open GPUs can take a
// pod; a closed GPU's free milli is fragment to every shape.
struct NodeShares {
  NodeId node = 0;
  std::int32_t cpu_milli_left = 0;
  double mem_left_gb = 0;
  std::uint32_t gpus = 0;
  std::array<DeviceId, kMaxNodeGpus> device{};
  std::array<DeviceTypeId, kMaxNodeGpus> type{};
  std::array<std::int16_t, kMaxNodeGpus> left{};
  std::array<bool, kMaxNodeGpus> open{};
  // The kinds of GPU jobs it holds (GpuClustering's "GPU affinity"): bit 0 for jobs that hold
  // a share of one GPU, bit k for jobs of k whole GPUs per worker (k < 32).
  std::uint32_t tags = 0;

  [[nodiscard]] std::int64_t gpu_milli_left() const; // all GPUs, open or not
  [[nodiscard]] std::uint32_t fully_free() const;    // GPUs with all 1000 milli left
  // The milli-GPUs a pod of shape s could use on GPU g (0 when closed or of a type it refuses).
  [[nodiscard]] std::int32_t usable(std::uint32_t g, const PodShape& s) const {
    return open[g] && (s.types >> type[g] & 1U) ? left[g] : 0;
  }
};

// The bit of NodeShares::tags for shape s; 0 for a pod of no GPU.
std::uint32_t tag_of(const PodShape& s);

// Throws InputError when a node has more GPUs than kMaxNodeGpus, or the cluster more than 64
// device types (PodShape::types).
void check_node_shares(const Cluster& cluster);
// Milli-GPUs a device's holders hold: 0 free, round(guaranteed x 1000) under the share controller,
// 1000 otherwise.
std::int32_t held_milli(const DeviceSlot& slot);
NodeShares read_node(const View& view, NodeId n);
// Shape of job j (which must be submitted): cores x 1000 and share x 1000, rounded; the GPU
// types are View::compatible_types'.
PodShape shape_of(const View& view, JobId j);
// The same from the whole state, submitted or not: for observers and oracle policies.
PodShape shape_of(const SimState& state, JobId j);

// Whether a pod of shape s fits on the node now: type, CPU, memory and GPUs.
bool fits(const NodeShares& n, const PodShape& s);
// GPUs (indices into the node's) a whole-GPU pod takes: the first fully free usable ones in
// index order (FGD's AllocateExclusiveGpuId). Empty when they are not enough.
std::vector<std::uint32_t> exclusive_gpus(const NodeShares& n, const PodShape& s);
// The node after placing a pod of shape s on GPUs `gpus`.
NodeShares after(const NodeShares& n, const PodShape& s, std::span<const std::uint32_t> gpus);

// The workload's typical shapes and their frequencies (FGD's "typical pods"): shapes counted,
// most frequent first (ties: larger CPU, then larger share, more GPUs, higher type bits first),
// kept until they cover `coverage` of the jobs (FGD: 95%), frequencies renormalized to sum to 1.
struct ShapeMix {
  std::vector<PodShape> shapes;
  std::vector<double> p;
};
ShapeMix typical_shapes(std::span<const PodShape> jobs, double coverage = 0.95);

// FGD's fragmentation of node n to one shape s, in milli-GPUs: the node's free GPU milli that a
// pod of shape s cannot use. All of it when s asks for no GPU, when no GPU of the node is of a
// type s accepts, or when s does not fit (lack of CPU or of GPUs); when it fits, the free milli of
// the GPUs it cannot use (each with less left than s asks per GPU, closed, or refused by type).
// Memory is not part of it, as in FGD.
std::int64_t frag_milli(const NodeShares& n, const PodShape& s);
// The expected fragmentation of the node under the mix: sum of p_s x frag_milli(n, s).
double expected_frag_milli(const NodeShares& n, const ShapeMix& mix);

} // namespace dlsim
