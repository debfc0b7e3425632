#include "sim/runtime/node_shares.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace dlsim {

std::int64_t NodeShares::gpu_milli_left() const {
  std::int64_t sum = 0;
  for (std::uint32_t g = 0; g < gpus; ++g)
    sum += left[g];
  return sum;
}

std::uint32_t NodeShares::fully_free() const {
  std::uint32_t k = 0;
  for (std::uint32_t g = 0; g < gpus; ++g)
    k += left[g] == kMilli ? 1U : 0U;
  return k;
}

void check_node_shares(const Cluster& cluster) {
  if (cluster.types.size() > 64) {
    throw InputError(fmt::format("cluster: {} device types; the GPU-sharing scorers and the "
                                 "fragmentation measure handle at most 64",
                                 cluster.types.size()));
  }
  for (const Node& node : cluster.nodes) {
    std::uint32_t gpus = 0;
    for (std::uint32_t k = 0; k < node.device_count; ++k)
      gpus += cluster.type_of(node.first_device + k).kind == DeviceKind::kGpu ? 1U : 0U;
    if (gpus > kMaxNodeGpus) {
      throw InputError(fmt::format("cluster: node group '{}' has {} GPUs per node; the "
                                   "GPU-sharing scorers and the fragmentation measure handle at "
                                   "most {}",
                                   cluster.groups[node.group].name, gpus, kMaxNodeGpus));
    }
  }
}

std::uint32_t tag_of(const PodShape& s) {
  if (s.gpus == 0) return 0;
  if (s.is_share()) return 1;
  return std::uint32_t{1} << std::min<std::uint32_t>(s.gpus, 31);
}

std::int32_t held_milli(const DeviceSlot& slot) {
  if (slot.count == 0) return 0;
  if (slot.controlled != slot.count) return kMilli;
  return std::min(kMilli, static_cast<std::int32_t>(std::lround(slot.guaranteed * kMilli)));
}

NodeShares read_node(const View& view, NodeId n) {
  const Cluster& c = view.cluster();
  const Node& node = c.nodes[n];
  NodeShares out;
  out.node = n;
  // Rounded down: a node never seems to have a milli-core more than it has.
  out.cpu_milli_left = static_cast<std::int32_t>(std::floor(view.node_cpu_free(n) * kMilli + 1e-6));
  out.mem_left_gb = view.node_mem_free(n);
  for (std::uint32_t k = 0; k < node.device_count; ++k) {
    const DeviceId d = node.first_device + k;
    if (c.type_of(d).kind != DeviceKind::kGpu) continue;
    const DeviceSlot& slot = view.device(d);
    const std::uint32_t g = out.gpus++;
    out.device[g] = d;
    out.type[g] = c.devices[d].type;
    out.left[g] = static_cast<std::int16_t>(kMilli - held_milli(slot));
    out.open[g] =
        slot.count == 0 || (slot.controlled == slot.count && slot.count < DeviceSlot::kMaxShare);
    for (unsigned h = 0; h < slot.count; ++h)
      out.tags |= tag_of(shape_of(view, slot.jobs[h]));
  }
  return out;
}

namespace {

PodShape make_shape(const JobRequest& req, const RequestDetails& rd,
                    std::span<const DeviceTypeId> types) {
  PodShape s;
  s.cpu_milli = static_cast<std::int32_t>(std::lround(rd.cpus_per_worker * kMilli));
  s.mem_gb = rd.mem_gb_per_worker;
  if (is_host_task(req)) return s;
  s.gpus = req.devices_per_worker;
  s.gpu_milli = rd.gpu_share_min < 1
                    ? std::max(1, static_cast<std::int32_t>(std::lround(rd.gpu_share_min * kMilli)))
                    : kMilli;
  for (DeviceTypeId t : types)
    s.types |= std::uint64_t{1} << t;
  return s;
}

} // namespace

PodShape shape_of(const View& view, JobId j) {
  return make_shape(view.request(j), view.details(j), view.compatible_types(j));
}

PodShape shape_of(const SimState& state, JobId j) {
  const JobRequest& req = state.workload->jobs[j].request;
  std::span<const DeviceTypeId> types;
  if (req.device_type == kAnyGpu) {
    types = state.gpu_types_for_model[req.model];
  } else if (req.device_type == kTypeSet) {
    types = state.set_types_for_model[req.type_set * state.gpu_types_for_model.size() + req.model];
  } else {
    types = std::span<const DeviceTypeId>(state.all_type_ids)
                .subspan(static_cast<std::size_t>(req.device_type), 1);
  }
  return make_shape(req, state.workload->details_of(req), types);
}

bool fits(const NodeShares& n, const PodShape& s) {
  if (n.cpu_milli_left < s.cpu_milli || n.mem_left_gb + 1e-9 < s.mem_gb) return false;
  std::uint32_t k = 0;
  for (std::uint32_t g = 0; g < n.gpus && k < s.gpus; ++g)
    k += n.usable(g, s) >= s.gpu_milli ? 1U : 0U;
  return k >= s.gpus;
}

std::vector<std::uint32_t> exclusive_gpus(const NodeShares& n, const PodShape& s) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t g = 0; g < n.gpus && out.size() < s.gpus; ++g)
    if (n.usable(g, s) == kMilli) out.push_back(g);
  if (out.size() < s.gpus) out.clear();
  return out;
}

NodeShares after(const NodeShares& n, const PodShape& s, std::span<const std::uint32_t> gpus) {
  NodeShares out = n;
  out.cpu_milli_left -= s.cpu_milli;
  out.mem_left_gb -= s.mem_gb;
  for (std::uint32_t g : gpus)
    out.left[g] = static_cast<std::int16_t>(out.left[g] - s.gpu_milli);
  out.tags |= tag_of(s);
  return out;
}

ShapeMix typical_shapes(std::span<const PodShape> jobs, double coverage) {
  // Keyed without memory, as FGD's pod resource is (CPU, share, GPUs, type).
  using Key = std::tuple<std::int32_t, std::int32_t, std::uint32_t, std::uint64_t>;
  std::map<Key, std::size_t> count;
  for (const PodShape& s : jobs)
    ++count[Key{s.cpu_milli, s.gpu_milli, s.gpus, s.types}];
  std::vector<std::pair<Key, std::size_t>> sorted(count.begin(), count.end());
  // Most frequent first; among equals the larger shape first (FGD sorts by count, then by CPU,
  // share, GPUs and type, in reverse).
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return std::tie(b.second, b.first) < std::tie(a.second, a.first);
  });
  ShapeMix mix;
  const double total = static_cast<double>(jobs.size());
  double covered = 0;
  for (const auto& [key, n] : sorted) {
    if (covered >= coverage * total) break;
    PodShape s;
    std::tie(s.cpu_milli, s.gpu_milli, s.gpus, s.types) = key;
    mix.shapes.push_back(s);
    mix.p.push_back(static_cast<double>(n));
    covered += static_cast<double>(n);
  }
  for (double& p : mix.p)
    p /= covered;
  return mix;
}

std::int64_t frag_milli(const NodeShares& n, const PodShape& s) {
  const std::int64_t all = n.gpu_milli_left();
  if (all == 0 || s.gpus == 0) return all;
  bool access = false;
  for (std::uint32_t g = 0; g < n.gpus && !access; ++g)
    access = (s.types >> n.type[g] & 1U) != 0;
  if (!access || n.cpu_milli_left < s.cpu_milli) return all;
  std::uint32_t k = 0;
  std::int64_t unusable = 0;
  for (std::uint32_t g = 0; g < n.gpus; ++g) {
    if (n.usable(g, s) >= s.gpu_milli) {
      ++k;
    } else {
      unusable += n.left[g];
    }
  }
  return k >= s.gpus ? unusable : all;
}

double expected_frag_milli(const NodeShares& n, const ShapeMix& mix) {
  double sum = 0;
  for (std::size_t i = 0; i < mix.shapes.size(); ++i)
    sum += mix.p[i] * static_cast<double>(frag_milli(n, mix.shapes[i]));
  return sum;
}

} // namespace dlsim
