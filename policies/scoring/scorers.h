// The node scorers of Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
// Fragmentation Gradient Descent", USENIX ATC'23, §6.1, as their simulator defines them
// (hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/plugin/*_score.go): each gives a
// feasible node an integer score from 0 to 100, higher is better, like a Kubernetes score plugin,
// and, for a pod that asks for a share of one GPU, the GPU of the node it goes to. Formulas in
// docs/fragmentation.md. Pure functions over sim/runtime/node_shares.h.
#pragma once

#include "sim/runtime/node_shares.h"

#include <cstdint>
#include <optional>
#include <string>

namespace dlsim {

enum class Scorer : std::uint8_t {
  kRandom,        // a feasible node drawn uniformly
  kDotProduct,    // Tetris' alignment (Grandl et al., SIGCOMM'14): the least dot product wins
  kGpuClustering, // pods of one kind (share, k GPUs) together
  kGpuPacking,    // shared GPUs first, then used nodes, then free nodes
  kBestFit,       // the least CPU and GPU left after placing (Panigrahy et al., 2011)
  kFgd,           // the least growth of expected fragmentation (the paper's FGD)
};

std::string to_string(Scorer s);

// Kubernetes' score range (framework.MaxNodeScore).
inline constexpr std::int64_t kMaxNodeScore = 100;
// FGD's normalizing constants (open-gpu-share/utils/const.go): the largest node's CPU milli-cores
// and milli-GPUs in Alibaba's cluster.
inline constexpr double kMaxSpecCpuMilli = 128000;
inline constexpr std::int64_t kMaxSpecGpuMilli = 8000;

// The GPU a share pod goes to among those of the node it can use (usable >= its share).
// Best fit: the least left, the lowest index among equals (FGD's allocateGpuIdBasedOnBestFit).
std::optional<std::uint32_t> best_fit_gpu(const NodeShares& n, const PodShape& s);

// Scores; each assumes fits(n, s).
// Tetris' dot product of the pod's request and the node's free (CPU, total GPU), each divided by
// FGD's largest node, lower is better: 100 x (1 - dot / 2), truncated.
std::int64_t dot_product_score(const NodeShares& n, const PodShape& s);
// 75..100 when the node holds only pods of the pod's kind, 50..75 when also others, 25..50 when
// it holds none, 0..25 when only other kinds; within a band, 25 x (8000 - free milli-GPUs) /
// 8000 (integer division). 0 for a pod of no GPU.
std::int64_t gpu_clustering_score(const NodeShares& n, const PodShape& s);
// A pod that fits on partly used GPUs: 100 - (sum of their free percent) / 10, at least 50; one
// that needs fully free GPUs of a used node: 50 - their count, at least 33; a free node: 33 - its
// free GPUs. 0 for a pod of no GPU.
std::int64_t gpu_packing_score(const NodeShares& n, const PodShape& s);
// 100 x (1 - (0.5 x (free CPU - request) / 128000 + 0.5 x (free GPU - request) / 8000)), before
// the min-max normalization over the feasible nodes (normalize_scores).
std::int64_t best_fit_score(const NodeShares& n, const PodShape& s);
// Kubernetes' NormalizeScore as FGD's BestFit uses it: (score - lowest) x 100 / (highest -
// lowest), integer; every score 0 when all are equal.
void normalize_scores(std::span<std::int64_t> scores);

// FGD: for each way to place the pod (each GPU that can take a share; the first free GPUs for a
// whole-GPU pod; the node alone for a pod of no GPU), the node's expected fragmentation under the
// mix before and after; score 100 x sigmoid((before - after) / 1000), truncated; the best way
// (the lowest GPU index among equals). `before`: expected_frag_milli(n, mix).
struct FgdChoice {
  std::int64_t score = 0;
  std::uint32_t gpu = 0; // for a share pod
};
FgdChoice fgd_score(const NodeShares& n, const PodShape& s, const ShapeMix& mix, double before);

} // namespace dlsim
