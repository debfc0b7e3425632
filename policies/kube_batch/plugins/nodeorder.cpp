// kube-batch / Volcano `nodeorder` plugin (pkg/scheduler/plugins/nodeorder/nodeorder.go): the
// Kubernetes scoring functions, each 0-100 and weighted by its argument. dlsim computes the three
// that depend on resources, over the resources the node has (devices of the task's type, CPU
// cores, memory):
//   leastrequested   = 100 x mean_r (capacity_r - used_r - request_r) / capacity_r   (spreads)
//   mostrequested    = 100 x mean_r (used_r + request_r) / capacity_r                (packs)
//   balancedresource = 100 x (1 - standard deviation over r of (used_r + request_r) / capacity_r)
// (Kubernetes' NodeResourcesLeastAllocated, MostAllocated and BalancedAllocation, which score CPU
// and memory; dlsim adds the device dimension, as a cluster scoring nvidia.com/gpu would.)
// Defaults as in Volcano: leastrequested.weight 1, mostrequested.weight 0,
// balancedresource.weight 1. The affinity, taint, image and topology-spread weights are
// accepted and score nothing: dlsim has no such constraints.
#include "policies/kube_batch/plugin.h"
#include "policies/kube_batch/plugins/node_score.h"

#include <cmath>

namespace dlsim::kb {

namespace {

class NodeOrder final : public Plugin {
public:
  explicit NodeOrder(const PluginOptions& o) : Plugin(o) {
    PluginArguments args(options(), {"leastrequested.weight", "mostrequested.weight",
                                     "balancedresource.weight", "nodeaffinity.weight",
                                     "podaffinity.weight", "tainttoleration.weight",
                                     "imagelocality.weight", "podtopologyspread.weight"});
    least_ = args.number("leastrequested.weight", 1);
    most_ = args.number("mostrequested.weight", 0);
    balanced_ = args.number("balancedresource.weight", 1);
  }

  std::optional<double> node_score(const Session&, const JobInfo& j, const NodeInfo& n,
                                   DeviceTypeId t) const override {
    NodeLoad l = node_load(j, n, t);
    double fractions[Resources::kDims];
    int k = 0;
    for (int r = 0; r < Resources::kDims; ++r) {
      if (l.capacity[r] <= 0) continue;
      fractions[k++] = std::min(1.0, (l.used[r] + l.request[r]) / l.capacity[r]);
    }
    if (k == 0) return 0.0;
    double mean = 0;
    for (int i = 0; i < k; ++i)
      mean += fractions[i];
    mean /= k;
    double var = 0;
    for (int i = 0; i < k; ++i)
      var += (fractions[i] - mean) * (fractions[i] - mean);
    double stddev = std::sqrt(var / k);
    return least_ * 100 * (1 - mean) + most_ * 100 * mean + balanced_ * 100 * (1 - stddev);
  }

private:
  double least_ = 1, most_ = 0, balanced_ = 1;
};

} // namespace

std::unique_ptr<Plugin> make_nodeorder(const PluginOptions& o) {
  return std::make_unique<NodeOrder>(o);
}

} // namespace dlsim::kb
