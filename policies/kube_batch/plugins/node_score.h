// What node-scoring plugins (nodeorder, binpack) read of a node for one more task of a job:
// per resource, the node's capacity, what is held and what the task asks (Kubernetes'
// NodeResourcesFit inputs). The device dimension is the devices of the type the task would use.
#pragma once

#include "policies/kube_batch/session.h"

#include <array>

namespace dlsim::kb {

struct NodeLoad {
  std::array<double, Resources::kDims> capacity{};
  std::array<double, Resources::kDims> used{};
  std::array<double, Resources::kDims> request{};
};

inline NodeLoad node_load(const JobInfo& j, const NodeInfo& n, DeviceTypeId t) {
  NodeLoad l;
  l.capacity = {static_cast<double>(n.capacity[t]), n.cpu_total, n.mem_total};
  l.used = {static_cast<double>(n.capacity[t] - n.idle[t].size()), n.cpu_total - n.cpu_idle,
            n.mem_total - n.mem_idle};
  l.request = j.task_req.v;
  return l;
}

} // namespace dlsim::kb
