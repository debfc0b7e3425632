#include "policies/placement.h"
#include "policies/topology_aware.h"

#include "sim/config/nearest_name.h"
#include "sim/engine/error.h"
#include "sim/runtime/control.h"
#include "sim/runtime/ps_placement.h"

#include <fmt/format.h>

#include <algorithm>

namespace dlsim {

void start_host_tasks(Control& control, std::vector<JobId>& waiting) {
  std::vector<JobId> still;
  for (JobId j : waiting) {
    if (control.state(j).status != JobStatus::kPending) continue;
    if (control.host_fit(j)) {
      control.start(j, {});
      continue;
    }
    still.push_back(j);
  }
  waiting.swap(still);
}

const std::vector<std::string>& placement_names() {
  static const std::vector<std::string> names = {"consolidate", "spread", "topology-aware",
                                                 "first-fit"};
  return names;
}

Placement parse_placement(const std::string& name) {
  if (name == "consolidate") return Placement::kConsolidate;
  if (name == "spread") return Placement::kSpread;
  if (name == "topology-aware") return Placement::kTopologyAware;
  if (name == "first-fit") return Placement::kFirstFit;
  throw InputError("policy.placement: " +
                   unknown_name_message("placement", name, placement_names()));
}

std::string to_string(Placement p) {
  return placement_names()[static_cast<std::size_t>(p)]; // names are in enum order
}

void take_on_node(const View& view, NodeId n, DeviceTypeId t, std::uint32_t workers,
                  std::uint32_t per_worker, std::vector<DeviceId>& out) {
  const Node& node = view.cluster().nodes[n];
  std::uint32_t want = workers * per_worker;
  for (DeviceId d = node.first_device; d < node.first_device + node.device_count && want > 0; ++d) {
    // A failed device holds no job but is not free (docs/failures.md).
    if (view.cluster().devices[d].type == t && view.device(d).count == 0 && !view.device_down(d)) {
      out.push_back(d);
      --want;
    }
  }
}

namespace {

// `allowed` (nullptr: every node) limits each strategy to the nodes it marks.
bool refused(const std::vector<char>* allowed, NodeId n) {
  return allowed && !(*allowed)[n];
}

std::optional<std::vector<DeviceId>> consolidate(const View& view, JobId j, DeviceTypeId t,
                                                 std::uint32_t workers,
                                                 const std::vector<char>* allowed) {
  const FreeIndex& free = view.free();
  const std::uint32_t dpw = view.request(j).devices_per_worker;
  const std::uint32_t need = workers * dpw;
  std::vector<DeviceId> out;
  // One node, best fit: the node with the fewest free devices that still holds the job.
  for (std::uint32_t k = need; k <= free.max_per_node(t); ++k) {
    for (NodeId n : free.nodes_with(t, k)) {
      if (!refused(allowed, n) && view.workers_fitting_on(j, n, t) >= workers) {
        take_on_node(view, n, t, workers, dpw, out);
        return out;
      }
    }
  }
  // Several nodes: fullest-free first, so the job spans as few nodes as possible. Node ids are
  // rack-contiguous, so equal candidates in id order also keep the job in few racks.
  std::uint32_t left = workers;
  for (std::uint32_t k = free.max_per_node(t); k >= dpw && left > 0; --k) {
    for (NodeId n : free.nodes_with(t, k)) {
      if (refused(allowed, n)) continue;
      std::uint32_t fit = std::min(left, view.workers_fitting_on(j, n, t));
      if (fit == 0) continue;
      take_on_node(view, n, t, fit, dpw, out);
      left -= fit;
      if (left == 0) break;
    }
    if (k == 0) break;
  }
  if (left > 0) return std::nullopt;
  return out;
}

std::optional<std::vector<DeviceId>> spread(const View& view, JobId j, DeviceTypeId t,
                                            std::uint32_t workers,
                                            const std::vector<char>* allowed) {
  const FreeIndex& free = view.free();
  const std::uint32_t dpw = view.request(j).devices_per_worker;
  std::vector<std::uint32_t> taken(view.cluster().nodes.size(), 0);
  std::vector<DeviceId> out;
  std::uint32_t left = workers;
  // Rounds of one worker per node, least-loaded (most free) nodes first.
  while (left > 0) {
    std::uint32_t placed_this_round = 0;
    for (std::uint32_t k = free.max_per_node(t); k >= dpw && left > 0; --k) {
      for (NodeId n : free.nodes_with(t, k)) {
        if (refused(allowed, n) || view.workers_fitting_on(j, n, t) <= taken[n]) continue;
        ++taken[n];
        ++placed_this_round;
        if (--left == 0) break;
      }
      if (k == 0) break;
    }
    if (placed_this_round == 0) return std::nullopt;
  }
  for (NodeId n = 0; n < taken.size(); ++n) {
    if (taken[n] > 0) take_on_node(view, n, t, taken[n], dpw, out);
  }
  return out;
}

// The first node in id order that holds every worker, as YARN's capacity scheduler and the
// Tiresias simulator's `yarn` scheme place a job that fits one node; else nodes in id order, each
// taking as many workers as fit (whole free nodes for a job of node-sized workers, as that
// scheme's cross-node allocation).
std::optional<std::vector<DeviceId>> first_fit(const View& view, JobId j, DeviceTypeId t,
                                               std::uint32_t workers,
                                               const std::vector<char>* allowed) {
  const FreeIndex& free = view.free();
  const std::uint32_t dpw = view.request(j).devices_per_worker;
  std::vector<DeviceId> out;
  // Each bucket lists its nodes in id order, so its first node that fits is its lowest; the
  // lowest over the buckets that can hold the job is the first node in id order.
  std::optional<NodeId> first;
  for (std::uint32_t k = workers * dpw; k <= free.max_per_node(t); ++k) {
    for (NodeId n : free.nodes_with(t, k)) {
      if (first && n > *first) break;
      if (!refused(allowed, n) && view.workers_fitting_on(j, n, t) >= workers) {
        first = n;
        break;
      }
    }
  }
  if (first) {
    take_on_node(view, *first, t, workers, dpw, out);
    return out;
  }
  std::uint32_t left = workers;
  for (NodeId n = 0; n < view.cluster().nodes.size() && left > 0; ++n) {
    if (refused(allowed, n)) continue;
    std::uint32_t fit = std::min(left, view.workers_fitting_on(j, n, t));
    if (fit == 0) continue;
    take_on_node(view, n, t, fit, dpw, out);
    left -= fit;
  }
  if (left > 0) return std::nullopt;
  return out;
}

std::optional<std::vector<DeviceId>> devices_on_type(const View& view, JobId j, Placement strategy,
                                                     std::uint32_t workers, DeviceTypeId t,
                                                     const std::vector<char>* allowed = nullptr) {
  switch (strategy) {
  case Placement::kConsolidate:
    return consolidate(view, j, t, workers, allowed);
  case Placement::kSpread:
    return spread(view, j, t, workers, allowed);
  case Placement::kTopologyAware:
    if (allowed) return std::nullopt; // refused by the policies that limit nodes (their factory)
    return place_topology_aware(view, j, t, workers);
  case Placement::kFirstFit:
    return first_fit(view, j, t, workers, allowed);
  }
  return std::nullopt;
}

} // namespace

std::optional<std::vector<DeviceId>> place_on_type(const View& view, JobId j, Placement strategy,
                                                   std::uint32_t workers, DeviceTypeId t) {
  if (is_host_task(view.request(j))) return place_host(view, j);
  // Fast refusal: not enough free devices of this type anywhere. Keeps a blocked FIFO head
  // from scanning the cluster at every decision.
  if (view.free().free(t) < workers * view.request(j).devices_per_worker) return std::nullopt;
  auto out = devices_on_type(view, j, strategy, workers, t);
  // Parameter servers that hold cores go with the workers (ps_placement.h): devices whose nodes
  // cannot also hold the shards' cores are no placement, and the job waits.
  if (out && !ps_cores_fit(view, j, *out)) return std::nullopt;
  return out;
}

std::optional<std::vector<DeviceId>> place(const View& view, JobId j, Placement strategy,
                                           std::uint32_t workers) {
  if (is_host_task(view.request(j))) return place_host(view, j);
  for (DeviceTypeId t : view.compatible_types(j)) {
    if (auto out = place_on_type(view, j, strategy, workers, t)) return out;
  }
  return std::nullopt;
}

std::optional<std::vector<DeviceId>> place_on_nodes(const View& view, JobId j, Placement strategy,
                                                    const std::vector<char>& allowed) {
  const JobRequest& req = view.request(j);
  if (is_host_task(req)) return place_host(view, j);
  const std::uint32_t need = req.workers * req.devices_per_worker;
  for (DeviceTypeId t : view.compatible_types(j)) {
    if (view.free().free(t) < need) continue;
    auto out = devices_on_type(view, j, strategy, req.workers, t, &allowed);
    if (out && ps_cores_fit(view, j, *out)) return out;
  }
  return std::nullopt;
}

} // namespace dlsim
