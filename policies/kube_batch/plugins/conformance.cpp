// kube-batch / Volcano `conformance` plugin (pkg/scheduler/plugins/conformance/conformance.go):
// every candidate may be evicted except critical pods (system-cluster-critical,
// system-node-critical, kube-system). dlsim's jobs are all user training jobs, so it lets every
// candidate go; it still takes part in the tier's agreement, as in kube-batch.
#include "policies/kube_batch/plugin.h"

namespace dlsim::kb {

namespace {

class Conformance final : public Plugin {
public:
  explicit Conformance(const PluginOptions& o) : Plugin(o) { PluginArguments args(options(), {}); }

  std::optional<std::vector<TaskRef>>
  preemptable(const Session&, TaskRef, const std::vector<TaskRef>& cands) const override {
    return cands;
  }
  std::optional<std::vector<TaskRef>>
  reclaimable(const Session&, TaskRef, const std::vector<TaskRef>& cands) const override {
    return cands;
  }
};

} // namespace

std::unique_ptr<Plugin> make_conformance(const PluginOptions& o) {
  return std::make_unique<Conformance>(o);
}

} // namespace dlsim::kb
