// Volcano `binpack` plugin (pkg/scheduler/plugins/binpack/binpack.go): best fit. For each
// resource the task asks for and that has a weight,
//   score_r = weight_r x (used_r + request_r) / capacity_r
// and the node's score is 100 x binpack.weight x sum_r score_r / sum_r weight_r.
// Arguments as in Volcano: binpack.weight (1), binpack.cpu (1), binpack.memory (1), and
// binpack.resources: a comma-separated list of extra resources with binpack.resources.<name>
// weights (1). dlsim's devices are the `nvidia.com/gpu` resource: without it in
// binpack.resources, binpack scores CPU and memory only, as Volcano does.
#include "policies/kube_batch/plugin.h"
#include "policies/kube_batch/plugins/node_score.h"

#include <boost/algorithm/string.hpp>

namespace dlsim::kb {

namespace {

class Binpack final : public Plugin {
public:
  explicit Binpack(const PluginOptions& o) : Plugin(o) {
    PluginArguments args(options(),
                         {"binpack.weight", "binpack.cpu", "binpack.memory", "binpack.resources"},
                         {"binpack.resources."});
    weight_ = args.number("binpack.weight", 1);
    weights_[1] = non_negative_or_one(args.number("binpack.cpu", 1));
    weights_[2] = non_negative_or_one(args.number("binpack.memory", 1));
    std::vector<std::string> names;
    std::string list = args.text("binpack.resources", "");
    boost::split(names, list, boost::is_any_of(","));
    for (auto& name : names) {
      boost::trim(name);
      // Resources other than nvidia.com/gpu exist on no dlsim node: they score nothing, as in
      // Volcano.
      if (name == "nvidia.com/gpu") {
        weights_[0] = non_negative_or_one(args.number("binpack.resources.nvidia.com/gpu", 1));
      }
    }
  }

  std::optional<double> node_score(const Session&, const JobInfo& j, const NodeInfo& n,
                                   DeviceTypeId t) const override {
    if (weight_ == 0) return {}; // Volcano registers no score function then
    NodeLoad l = node_load(j, n, t);
    double score = 0;
    double weights = 0;
    for (int r = 0; r < Resources::kDims; ++r) {
      if (l.request[r] <= 0 || weights_[r] <= 0) continue;
      if (l.capacity[r] > 0) {
        double after = l.used[r] + l.request[r];
        if (after > l.capacity[r] + kEps) return 0.0; // does not fit: binpack.go scores 0
        score += weights_[r] * after / l.capacity[r];
      }
      weights += weights_[r];
    }
    if (weights > 0) score /= weights;
    return score * 100 * weight_;
  }

private:
  // Volcano resets a negative weight to 1.
  static double non_negative_or_one(double w) { return w < 0 ? 1 : w; }

  double weight_ = 1;
  double weights_[Resources::kDims] = {0, 1, 1}; // nvidia.com/gpu, cpu, memory
};

} // namespace

std::unique_ptr<Plugin> make_binpack(const PluginOptions& o) {
  return std::make_unique<Binpack>(o);
}

} // namespace dlsim::kb
