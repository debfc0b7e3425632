#include "policies/scoring/scorers.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

namespace dlsim {

std::string to_string(Scorer s) {
  switch (s) {
  case Scorer::kRandom:
    return "random";
  case Scorer::kDotProduct:
    return "dot-product";
  case Scorer::kGpuClustering:
    return "gpu-clustering";
  case Scorer::kGpuPacking:
    return "gpu-packing";
  case Scorer::kBestFit:
    return "best-fit";
  case Scorer::kFgd:
    return "fgd";
  }
  return "?";
}

std::optional<std::uint32_t> best_fit_gpu(const NodeShares& n, const PodShape& s) {
  std::optional<std::uint32_t> best;
  for (std::uint32_t g = 0; g < n.gpus; ++g) {
    const std::int32_t u = n.usable(g, s);
    if (u >= s.gpu_milli && (!best || u < n.left[*best])) best = g;
  }
  return best;
}

std::int64_t dot_product_score(const NodeShares& n, const PodShape& s) {
  const double dot = (n.cpu_milli_left / kMaxSpecCpuMilli) * (s.cpu_milli / kMaxSpecCpuMilli) +
                     (static_cast<double>(n.gpu_milli_left()) / kMaxSpecGpuMilli) *
                         (static_cast<double>(s.total_gpu_milli()) / kMaxSpecGpuMilli);
  return static_cast<std::int64_t>(static_cast<double>(kMaxNodeScore) * (1 - dot / 2));
}

std::int64_t gpu_clustering_score(const NodeShares& n, const PodShape& s) {
  const std::uint32_t tag = tag_of(s);
  if (tag == 0) return 0;
  // Integer arithmetic in FGD's order: 25 x (8000 - free) / 8000.
  const std::int64_t band =
      kMaxNodeScore / 4 * (kMaxSpecGpuMilli - n.gpu_milli_left()) / kMaxSpecGpuMilli;
  if ((n.tags & tag) != 0) return band + (std::popcount(n.tags) == 1 ? 75 : 50);
  return band + (n.tags == 0 ? 25 : 0);
}

std::int64_t gpu_packing_score(const NodeShares& n, const PodShape& s) {
  if (s.gpus == 0) return 0;
  const auto free = static_cast<std::int64_t>(n.fully_free());
  if (free == n.gpus) return std::max(kMaxNodeScore / 3 - free, free);
  // The GPUs the pod would take, least free first (a stable sort, as FGD's).
  std::array<std::uint32_t, kMaxNodeGpus> order{};
  std::iota(order.begin(), order.begin() + n.gpus, 0U);
  std::stable_sort(order.begin(), order.begin() + n.gpus,
                   [&](std::uint32_t a, std::uint32_t b) { return n.left[a] < n.left[b]; });
  std::uint32_t need = s.gpus;
  std::int64_t free_used = 0;
  std::int64_t percent_left = 0;
  for (std::uint32_t k = 0; k < n.gpus && need > 0; ++k) {
    const std::uint32_t g = order[k];
    if (n.usable(g, s) < s.gpu_milli) continue;
    --need;
    percent_left += static_cast<std::int64_t>(n.left[g]) * 100 / kMilli;
    if (n.left[g] == kMilli) ++free_used;
  }
  if (free_used > 0) return std::max(kMaxNodeScore / 2 - free_used, kMaxNodeScore / 3);
  return std::max(kMaxNodeScore - percent_left / 10, kMaxNodeScore / 2);
}

std::int64_t best_fit_score(const NodeShares& n, const PodShape& s) {
  const double left =
      0.5 * (n.cpu_milli_left - s.cpu_milli) / kMaxSpecCpuMilli +
      0.5 * static_cast<double>(n.gpu_milli_left() - s.total_gpu_milli()) / kMaxSpecGpuMilli;
  return static_cast<std::int64_t>((1.0 - left) * static_cast<double>(kMaxNodeScore));
}

void normalize_scores(std::span<std::int64_t> scores) {
  if (scores.empty()) return;
  const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  const std::int64_t lowest = *lo;
  const std::int64_t range = *hi - lowest;
  for (std::int64_t& x : scores)
    x = range == 0 ? 0 : (x - lowest) * kMaxNodeScore / range;
}

namespace {

std::int64_t sigmoid_score(double before, double after) {
  const double x = (before - after) / 1000;
  return static_cast<std::int64_t>(1.0 / (1.0 + std::exp(-x)) * static_cast<double>(kMaxNodeScore));
}

} // namespace

FgdChoice fgd_score(const NodeShares& n, const PodShape& s, const ShapeMix& mix, double before) {
  FgdChoice best;
  if (s.is_share()) {
    bool any = false;
    for (std::uint32_t g = 0; g < n.gpus; ++g) {
      if (n.usable(g, s) < s.gpu_milli) continue;
      const std::uint32_t one[] = {g};
      const std::int64_t score = sigmoid_score(before, expected_frag_milli(after(n, s, one), mix));
      if (!any || score > best.score) {
        best = {score, g};
        any = true;
      }
    }
    return best;
  }
  const std::vector<std::uint32_t> gpus = exclusive_gpus(n, s);
  best.score = sigmoid_score(before, expected_frag_milli(after(n, s, gpus), mix));
  return best;
}

} // namespace dlsim
