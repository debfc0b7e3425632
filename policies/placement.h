// Placement strategies: which devices a job's workers get. Policies choose one by name
// (`policy.placement`) and reuse it; none of them changes the state.
#pragma once

#include "sim/runtime/view.h"

#include <optional>
#include <string>
#include <vector>

namespace dlsim {

class Control;
class Plan;

enum class Placement {
  kConsolidate,   // fewest nodes: a single node by best fit, else the nodes with most free first
  kSpread,        // one worker per node, least-loaded nodes first
  kTopologyAware, // most bandwidth for the job's pattern, then fewest hops (topology_aware.h)
  kFirstFit,      // the first node in id order that holds the job (YARN, Tiresias' simulator)
};

Placement parse_placement(const std::string& name); // InputError listing the valid names
std::string to_string(Placement p);
const std::vector<std::string>& placement_names();

// Appends `workers` workers' worth of free devices (held by no job) of type t on node n to `out`,
// lowest device ids first; fewer when the node has fewer.
void take_on_node(const View& view, NodeId n, DeviceTypeId t, std::uint32_t workers,
                  std::uint32_t per_worker, std::vector<DeviceId>& out);

// Devices for `workers` workers of job j (devices_per_worker each, one node per worker), or
// nullopt when the free devices cannot hold them. Tries the job's compatible device types in
// order and uses the first that fits.
std::optional<std::vector<DeviceId>> place(const View& view, JobId j, Placement strategy,
                                           std::uint32_t workers);
// The same on one device type only (which must be one of the job's compatible types).
std::optional<std::vector<DeviceId>> place_on_type(const View& view, JobId j, Placement strategy,
                                                   std::uint32_t workers, DeviceTypeId t);
// place() limited to the nodes n with allowed[n] != 0 (one entry per node): for a policy that
// holds nodes back (hot-spares). Consolidate, spread and first-fit; topology-aware finds nothing.
std::optional<std::vector<DeviceId>> place_on_nodes(const View& view, JobId j, Placement strategy,
                                                    const std::vector<char>& allowed);
// place_on_type's strategies over a plan's free devices, cores and memory (sim/runtime/plan.h)
// instead of the runtime's now: the devices the strategy would pick once the plan's changes are
// made, for the plan to reserve (Plan::try_reserve, which also checks the servers' cores). Not
// for host tasks, and none for topology-aware (it reads the network's flows now): nullopt.
std::optional<std::vector<DeviceId>> place_in_plan(const Plan& plan, JobId j, Placement strategy,
                                                   std::uint32_t workers, DeviceTypeId t);
// A host task (sim/runtime/job.h is_host_task) holds no devices: an empty list when its workers
// fit on nodes now (View::host_fit, which start(j, {}) then uses), nullopt when not. place and
// place_on_type return this for host tasks, whatever the strategy.
inline std::optional<std::vector<DeviceId>> place_host(const View& view, JobId j) {
  if (!view.host_fit(j)) return std::nullopt;
  return std::vector<DeviceId>{};
}
// Starts the host tasks of `waiting` that fit now on View::host_fit's nodes, in list order, and
// drops them and any no longer pending from the list: for policies that keep host tasks out of
// their own device logic (kube-batch, elastic-kubeflow).
void start_host_tasks(Control& control, std::vector<JobId>& waiting);
inline std::optional<std::vector<DeviceId>> place(const View& view, JobId j, Placement strategy) {
  return place(view, j, strategy, view.request(j).workers);
}

} // namespace dlsim
