// kube-batch / Volcano `predicates` plugin (pkg/scheduler/plugins/predicates): Kubernetes' node
// filters. What dlsim has of them: a device must hold the job's model (gpu_mem_gb no larger than
// the device type's memory, as Volcano's GPU-sharing predicate checks device memory). The job's
// device type (a nodeSelector) and the host CPU and memory fit are checked for every policy, as
// the kubelet would refuse a pod that breaks them. The `predicate.*` switches of node pressure,
// ports, volumes and affinity concern nothing dlsim models and are accepted without effect.
#include "policies/kube_batch/plugin.h"

namespace dlsim::kb {

namespace {

class Predicates final : public Plugin {
public:
  explicit Predicates(const PluginOptions& o) : Plugin(o) {
    PluginArguments args(options(), {}, {"predicate."});
  }

  std::optional<bool> predicate(const Session& s, const JobInfo& j, const NodeInfo&,
                                DeviceTypeId t) const override {
    double memory = s.view().cluster().types[t].memory_gb;
    return j.gpu_mem_gb <= 0 || memory <= 0 || j.gpu_mem_gb <= memory + kEps;
  }
};

} // namespace

std::unique_ptr<Plugin> make_predicates(const PluginOptions& o) {
  return std::make_unique<Predicates>(o);
}

} // namespace dlsim::kb
