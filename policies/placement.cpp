#include "policies/placement.h"
#include "policies/topology_aware.h"

#include "sim/config/nearest_name.h"
#include "sim/engine/error.h"
#include "sim/runtime/control.h"
#include "sim/runtime/plan.h"
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

// What a strategy reads of the free devices: the runtime's now (NowFree) or a plan's (PlanFree).
// Each offers the largest free count of a type on a node, the nodes with exactly k free in id
// order (fn returns false to stop), the job's workers that fit on a node, and the lowest free
// devices of a node.
struct NowFree {
  const View& view;
  [[nodiscard]] std::uint32_t max_per_node(DeviceTypeId t) const {
    return view.free().max_per_node(t);
  }
  template <class Fn>
  void nodes_with(DeviceTypeId t, std::uint32_t k, Fn&& fn) const {
    for (NodeId n : view.free().nodes_with(t, k)) {
      if (!fn(n)) return;
    }
  }
  [[nodiscard]] std::uint32_t fit(JobId j, NodeId n, DeviceTypeId t) const {
    return view.workers_fitting_on(j, n, t);
  }
  void take(NodeId n, DeviceTypeId t, std::uint32_t workers, std::uint32_t per_worker,
            std::vector<DeviceId>& out) const {
    take_on_node(view, n, t, workers, per_worker, out);
  }
};

struct PlanFree {
  const Plan& plan;
  [[nodiscard]] std::uint32_t max_per_node(DeviceTypeId t) const { return plan.max_per_node(t); }
  template <class Fn>
  void nodes_with(DeviceTypeId t, std::uint32_t k, Fn&& fn) const {
    plan.for_nodes_with(t, k, fn);
  }
  [[nodiscard]] std::uint32_t fit(JobId j, NodeId n, DeviceTypeId t) const {
    return plan.workers_fit(j, n, t);
  }
  void take(NodeId n, DeviceTypeId t, std::uint32_t workers, std::uint32_t per_worker,
            std::vector<DeviceId>& out) const {
    plan.take_on_node(n, t, workers * per_worker, out);
  }
};

template <class Free>
std::optional<std::vector<DeviceId>> consolidate(const Free& free, const View& view, JobId j,
                                                 DeviceTypeId t, std::uint32_t workers,
                                                 const std::vector<char>* allowed) {
  const std::uint32_t dpw = view.request(j).devices_per_worker;
  const std::uint32_t need = workers * dpw;
  std::vector<DeviceId> out;
  // One node, best fit: the node with the fewest free devices that still holds the job.
  for (std::uint32_t k = need; k <= free.max_per_node(t); ++k) {
    bool found = false;
    free.nodes_with(t, k, [&](NodeId n) {
      if (refused(allowed, n) || free.fit(j, n, t) < workers) return true;
      free.take(n, t, workers, dpw, out);
      found = true;
      return false;
    });
    if (found) return out;
  }
  // Several nodes: fullest-free first, so the job spans as few nodes as possible. Node ids are
  // rack-contiguous, so equal candidates in id order also keep the job in few racks.
  std::uint32_t left = workers;
  for (std::uint32_t k = free.max_per_node(t); k >= dpw && left > 0; --k) {
    free.nodes_with(t, k, [&](NodeId n) {
      if (refused(allowed, n)) return true;
      std::uint32_t fit = std::min(left, free.fit(j, n, t));
      if (fit == 0) return true;
      free.take(n, t, fit, dpw, out);
      left -= fit;
      return left > 0;
    });
    if (k == 0) break;
  }
  if (left > 0) return std::nullopt;
  return out;
}

template <class Free>
std::optional<std::vector<DeviceId>> spread(const Free& free, const View& view, JobId j,
                                            DeviceTypeId t, std::uint32_t workers,
                                            const std::vector<char>* allowed) {
  const std::uint32_t dpw = view.request(j).devices_per_worker;
  std::vector<std::uint32_t> taken(view.cluster().nodes.size(), 0);
  std::vector<DeviceId> out;
  std::uint32_t left = workers;
  // Rounds of one worker per node, least-loaded (most free) nodes first.
  while (left > 0) {
    std::uint32_t placed_this_round = 0;
    for (std::uint32_t k = free.max_per_node(t); k >= dpw && left > 0; --k) {
      free.nodes_with(t, k, [&](NodeId n) {
        if (refused(allowed, n) || free.fit(j, n, t) <= taken[n]) return true;
        ++taken[n];
        ++placed_this_round;
        return --left > 0;
      });
      if (k == 0) break;
    }
    if (placed_this_round == 0) return std::nullopt;
  }
  for (NodeId n = 0; n < taken.size(); ++n) {
    if (taken[n] > 0) free.take(n, t, taken[n], dpw, out);
  }
  return out;
}

// The first node in id order that holds every worker, as YARN's capacity scheduler and the
// Tiresias simulator's `yarn` scheme place a job that fits one node; else nodes in id order, each
// taking as many workers as fit (whole free nodes for a job of node-sized workers, as that
// scheme's cross-node allocation).
template <class Free>
std::optional<std::vector<DeviceId>> first_fit(const Free& free, const View& view, JobId j,
                                               DeviceTypeId t, std::uint32_t workers,
                                               const std::vector<char>* allowed) {
  const std::uint32_t dpw = view.request(j).devices_per_worker;
  std::vector<DeviceId> out;
  // Each bucket lists its nodes in id order, so its first node that fits is its lowest; the
  // lowest over the buckets that can hold the job is the first node in id order.
  std::optional<NodeId> first;
  for (std::uint32_t k = workers * dpw; k <= free.max_per_node(t); ++k) {
    free.nodes_with(t, k, [&](NodeId n) {
      if (first && n > *first) return false;
      if (refused(allowed, n) || free.fit(j, n, t) < workers) return true;
      first = n;
      return false;
    });
  }
  if (first) {
    free.take(*first, t, workers, dpw, out);
    return out;
  }
  std::uint32_t left = workers;
  for (NodeId n = 0; n < view.cluster().nodes.size() && left > 0; ++n) {
    if (refused(allowed, n)) continue;
    std::uint32_t fit = std::min(left, free.fit(j, n, t));
    if (fit == 0) continue;
    free.take(n, t, fit, dpw, out);
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
    return consolidate(NowFree{view}, view, j, t, workers, allowed);
  case Placement::kSpread:
    return spread(NowFree{view}, view, j, t, workers, allowed);
  case Placement::kTopologyAware:
    if (allowed) return std::nullopt; // refused by the policies that limit nodes (their factory)
    return place_topology_aware(view, j, t, workers);
  case Placement::kFirstFit:
    return first_fit(NowFree{view}, view, j, t, workers, allowed);
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

std::optional<std::vector<DeviceId>> place_in_plan(const Plan& plan, JobId j, Placement strategy,
                                                   std::uint32_t workers, DeviceTypeId t) {
  const View& view = plan.view();
  const JobRequest& r = view.request(j);
  if (is_host_task(r) || plan.free(t) < workers * r.devices_per_worker) return std::nullopt;
  switch (strategy) {
  case Placement::kConsolidate:
    return consolidate(PlanFree{plan}, view, j, t, workers, nullptr);
  case Placement::kSpread:
    return spread(PlanFree{plan}, view, j, t, workers, nullptr);
  case Placement::kTopologyAware:
    return std::nullopt;
  case Placement::kFirstFit:
    return first_fit(PlanFree{plan}, view, j, t, workers, nullptr);
  }
  return std::nullopt;
}

} // namespace dlsim
