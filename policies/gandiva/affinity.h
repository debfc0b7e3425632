// Gandiva's affinity placement (Xiao et al., OSDI'18, sec. 5.1): a job goes first to nodes that
// already hold jobs of its own GPU-count class, then to idle nodes, then to nodes of other
// classes, so that jobs of one size gather and time-slice together and large jobs find whole
// nodes free.
#pragma once

#include "policies/gandiva/job_kind.h"
#include "policies/gandiva/state.h"

#include <map>
#include <optional>
#include <set>
#include <span>
#include <vector>

namespace dlsim::gandiva {

// What a plan has already promised on top of the runtime's state: devices, node CPUs and
// memory, and nodes not to use.
struct Claims {
  std::set<DeviceId> devices;
  std::map<NodeId, double> cpu;
  std::map<NodeId, double> mem;
  std::set<NodeId> nodes_off;
  std::set<NodeId> receiving; // nodes that planned moves land on: not to be emptied themselves
};

// Devices of type t on node n that nobody holds, no group reserves and no claim takes.
std::vector<DeviceId> free_on(const View& view, const State& st, NodeId n, DeviceTypeId t,
                              const Claims* claims = nullptr);
// How many devices free_on(view, st, n, t) would return, in O(1) on a node no group reserves.
std::uint32_t free_count(const View& view, const State& st, NodeId n, DeviceTypeId t);
// How many more workers of job j node n's free CPUs and memory can take.
std::uint32_t workers_by_resources(const View& view, JobId j, NodeId n,
                                   const Claims* claims = nullptr);
// True when the nodes of `devices` have the CPUs and memory for job j's workers on them.
bool resources_fit(const View& view, JobId j, std::span<const DeviceId> devices,
                   const Claims* claims = nullptr);
// 0: the node holds only groups of class `cls`; 1: it holds no group; 2: it holds other classes.
int affinity_rank(const View& view, const State& st, NodeId n, std::uint32_t cls);
// Free devices for `workers` workers of job j, in affinity order: one node when one holds
// them all (best fit within the best rank), else several, most free first. Devices worker-major.
std::optional<std::vector<DeviceId>> affinity_place(const View& view, const State& st, JobId j,
                                                    std::uint32_t workers,
                                                    const Claims* claims = nullptr);

} // namespace dlsim::gandiva
