// Hot spares: a pool of whole nodes is held back from normal placement, and a job that a failure
// stopped restarts at once, ahead of every waiting job, on its healthy nodes (free again) plus as
// many spares as it needs; a node a repair returns refills the pool. This is the sparing of
// Meta's production training clusters ("Sparing Strategies to Minimize
// Reliability Impact On Large Training Jobs", MLSys 2026: spare compute pre-allocated to replace
// failed components) and the standby machines of TrainMover (Lao et al., arXiv:2412.12636).
// Everything else is strict FIFO: the first waiting job that does not fit the nodes outside the
// pool blocks the ones behind it. It decides from what a scheduler sees: the failure and repair
// notifications and the view's device states (docs/policies.md#hot-spares).
#include "policies/hot_spares.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <unordered_map>

namespace dlsim {

namespace {

class HotSpares final : public Policy {
public:
  HotSpares(Placement placement, std::uint32_t spare_nodes, double spare_fraction)
      : placement_(placement), spare_nodes_(spare_nodes), spare_fraction_(spare_fraction) {}

  // The pool must leave a node to run jobs on.
  void check_cluster(const Cluster& cluster) const override {
    const auto nodes = static_cast<std::uint32_t>(cluster.nodes.size());
    const std::uint32_t target = pool_size(nodes);
    if (target < nodes) return;
    const bool by_count = target == spare_nodes_;
    throw InputError(fmt::format(
        "policy.params.{}: holding {} of the cluster's {} nodes as spares leaves none to run "
        "jobs on; at most {}",
        by_count ? "spare_nodes" : "spare_fraction", target, nodes, nodes - 1));
  }

  void on_arrival(JobId j, const View& view) override {
    init(view);
    queue_.push_back(j);
  }

  // Restarts go first, in the order their failures struck.
  void on_failure(JobId j, const View& view) override {
    init(view);
    restarts_.push_back(j);
  }

  // A node that comes back whole refills the pool while it is short; it keeps any job still on
  // it (a GPU's repair on a busy node) and is offered to restarts only.
  void on_repair(DeviceId first, std::uint32_t /*count*/, const View& view) override {
    init(view);
    const NodeId n = view.cluster().devices[first].node;
    if (pool_ < target_ && !spare_[n] && node_up(view, n)) set_spare(n, true);
  }

  void schedule(Control& control) override {
    if (queue_.empty() && restarts_.empty()) return;
    init(control);
    // A failed gang takes its healthy nodes back (free since the failure) and spares for the
    // rest; it waits at the head of the line when even they do not hold it.
    while (!restarts_.empty()) {
      const JobId j = restarts_.front();
      if (control.state(j).status != JobStatus::kPending) {
        restarts_.pop_front();
        continue;
      }
      auto devices = place_on_nodes(control, j, placement_, normal_);
      if (!devices) devices = place_on_nodes(control, j, placement_, all_);
      if (!devices) return;
      for (DeviceId d : *devices) {
        const NodeId n = control.cluster().devices[d].node;
        if (spare_[n]) set_spare(n, false); // it joins the job's nodes for good
      }
      control.start(j, *devices);
      restarts_.pop_front();
    }
    while (!queue_.empty()) {
      const JobId j = queue_.front();
      if (control.state(j).status != JobStatus::kPending) {
        queue_.pop_front();
        continue;
      }
      auto devices = place_on_nodes(control, j, placement_, normal_);
      // A job larger than the nodes outside the pool could never start there: it may use the
      // spares too.
      if (!devices && !fits_outside_pool(control, j))
        devices = place_on_nodes(control, j, placement_, all_);
      if (!devices) return; // strict FIFO
      control.start(j, *devices);
      queue_.pop_front();
    }
  }

private:
  [[nodiscard]] std::uint32_t pool_size(std::uint32_t nodes) const {
    return std::max<std::uint32_t>(
        spare_nodes_,
        static_cast<std::uint32_t>(std::ceil(spare_fraction_ * static_cast<double>(nodes))));
  }

  // The pool's first members are the highest-numbered nodes (the last rack's).
  void init(const View& view) {
    if (!spare_.empty()) return;
    const Cluster& c = view.cluster();
    const auto nodes = static_cast<std::uint32_t>(c.nodes.size());
    target_ = pool_size(nodes); // below `nodes` (check_cluster)
    spare_.assign(nodes, 0);
    normal_.assign(nodes, 1);
    all_.assign(nodes, 1);
    for (NodeId n = nodes - target_; n < nodes; ++n)
      set_spare(n, true);
  }

  void set_spare(NodeId n, bool spare) {
    spare_[n] = spare ? 1 : 0;
    normal_[n] = spare ? 0 : 1;
    capacity_.clear();
    if (spare)
      ++pool_;
    else
      --pool_;
  }

  static bool node_up(const View& view, NodeId n) {
    const Node& node = view.cluster().nodes[n];
    for (DeviceId d = node.first_device; d < node.first_device + node.device_count; ++d) {
      if (view.device_down(d)) return false;
    }
    return true;
  }

  // Whether the nodes outside the pool, all free, would hold the job's workers on some compatible
  // type (by devices per node; cores and memory aside). Cached per (type, devices per worker)
  // until the pool changes.
  bool fits_outside_pool(const View& view, JobId j) {
    const JobRequest& req = view.request(j);
    const std::uint32_t dpw = req.devices_per_worker;
    if (dpw == 0) return true;
    const Cluster& c = view.cluster();
    for (DeviceTypeId t : view.compatible_types(j)) {
      const std::uint64_t key = (static_cast<std::uint64_t>(t) << 32) | dpw;
      auto it = capacity_.find(key);
      if (it == capacity_.end()) {
        std::uint64_t workers = 0;
        for (NodeId n = 0; n < c.nodes.size(); ++n) {
          if (spare_[n]) continue;
          const Node& node = c.nodes[n];
          std::uint32_t of_type = 0;
          for (DeviceId d = node.first_device; d < node.first_device + node.device_count; ++d)
            of_type += c.devices[d].type == t ? 1 : 0;
          workers += of_type / dpw;
        }
        it = capacity_.emplace(key, workers).first;
      }
      if (it->second >= req.workers) return true;
    }
    return false;
  }

  Placement placement_;
  std::uint32_t spare_nodes_;
  double spare_fraction_;
  std::uint32_t target_ = 0; // the pool's size when full
  std::uint32_t pool_ = 0;   // nodes in it now
  std::vector<char> spare_;  // per node: in the pool
  std::vector<char> normal_; // per node: not in the pool (where waiting jobs may go)
  std::vector<char> all_;    // every node (restarts)
  // Workers of (type << 32 | devices per worker) the nodes outside the pool hold when empty.
  std::unordered_map<std::uint64_t, std::uint64_t> capacity_;
  std::deque<JobId> restarts_; // failed jobs, in the order they failed
  std::deque<JobId> queue_;    // waiting jobs, in arrival order
};

} // namespace

PolicyEntry hot_spares_policy() {
  PolicyEntry entry{
      "hot-spares",
      "FIFO that holds spare nodes back and restarts a failed job on them at once, ahead of the "
      "queue; a repaired node refills the pool",
      false,
      {{"spare_nodes", ParamType::kNumber, "1",
        "nodes held back as spares (the pool holds the larger of this and spare_fraction)",
        ParamRange{0.0, 1e6, false, true}},
       {"spare_fraction", ParamType::kNumber, "0", "share of the cluster's nodes held back",
        ParamRange{0.0, 0.5}}},
      [](const PolicySetup& s) -> std::unique_ptr<Policy> {
        if (s.placement == Placement::kTopologyAware) {
          throw InputError("policy.placement: hot-spares places on the nodes outside its pool "
                           "with consolidate, spread or first-fit, not topology-aware");
        }
        return std::make_unique<HotSpares>(
            s.placement, static_cast<std::uint32_t>(s.params.number("spare_nodes")),
            s.params.number("spare_fraction"));
      }};
  // A failed job is handed back through on_failure and restarts from the view's free devices,
  // which never include a failed one.
  entry.handles_failures = true;
  return entry;
}

} // namespace dlsim
