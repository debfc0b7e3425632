// Kubernetes' default scheduler (kube-scheduler, https://kubernetes.io/docs/concepts/scheduling-
// eviction/kube-scheduler/) facing distributed training jobs, as Frank Lin's COSCUP 2019 talk
// "Kubeflow 進行分散式深度學習訓練之作業排程瓶頸" describes it (slide 25): it schedules at pod
// level, one pod at a time, and spreads pods evenly across nodes; a job whose pods start
// partially holds its devices idle while the rest wait, and two such jobs can deadlock.
//
// Model. A job of W workers is W pods. The training operator creates them one after another,
// pod k at submit + k x pod_interval_s; the scheduling queue pops pods by priority, then
// creation time (the PrioritySort plugin), ties to the lower job id. Each pod is filtered
// (NodeResourcesFit: enough free devices of a type the job may use, the type its bound pods
// already have, free host CPUs and memory) and the feasible nodes scored:
//   NodeResourcesFit, LeastAllocated (default) = 100 x mean_r (free_r after the pod) / capacity_r
//                     MostAllocated            = 100 x mean_r (used_r after the pod) / capacity_r
//   + NodeResourcesBalancedAllocation          = 100 x (1 - std_r (used_r after) / capacity_r)
// over the node's resources r (devices of the type, CPU cores, memory; both plugins have weight
// 1 in the default profile), best score first, ties to the lower node id (kube-scheduler picks
// at random among ties). The pod is bound at once (Control::bind: its devices are held but idle);
// a pod that fits nowhere waits and is retried at the next event. The job starts computing when
// its last pod is bound. There is no preemption among equal priorities and no gang: nothing ever
// unbinds a partly placed job.
#include "policies/k8s_default.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

namespace {

// Built from the resolved parameters (k8s_default_options); the defaults are declared in
// k8s_default_policy() only.
struct K8sDefaultOptions {
  double pod_interval_s = 0;   // between the creation of consecutive pods of one job
  bool most_allocated = false; // NodeResourcesFit scoring: MostAllocated instead of LeastAllocated
};

// A pod in the scheduling queue, in PrioritySort order: higher priority, then older first.
struct Pod {
  int priority;
  SimTime created;
  JobId job;
  std::uint32_t index;
  [[nodiscard]] auto key() const {
    return std::make_tuple(-static_cast<std::int64_t>(priority), created, job, index);
  }
  bool operator<(const Pod& o) const { return key() < o.key(); }
};

class K8sDefault final : public Policy {
public:
  explicit K8sDefault(K8sDefaultOptions o) : o_(o) {}

  void on_arrival(JobId j, const View&) override { waiting_.insert(j); }
  void on_finish(JobId j, const View&) override { waiting_.erase(j); }

  void schedule(Control& control) override {
    count_capacity(control.cluster());
    SimTime next_pod = kNever;
    std::vector<Pod> pods;
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      JobId j = *it;
      JobStatus st = control.state(j).status;
      if (st != JobStatus::kPending && st != JobStatus::kBinding) {
        it = waiting_.erase(it); // started (or ended): its pods are all placed
        continue;
      }
      ++it;
      const JobRequest& r = control.request(j);
      auto bound =
          is_host_task(r)
              ? 0U
              : static_cast<std::uint32_t>(control.state(j).devices.size() / r.devices_per_worker);
      for (std::uint32_t k = bound; k < r.workers; ++k) {
        SimTime created =
            r.submit + from_seconds(o_.pod_interval_s * k, "policy.params.pod_interval_s x pod");
        if (created > control.now()) {
          next_pod = std::min(next_pod, created);
          break; // its later pods do not exist yet either
        }
        pods.push_back(Pod{r.priority, created, j, k});
      }
    }
    std::sort(pods.begin(), pods.end());
    for (const Pod& pod : pods)
      schedule_pod(control, pod.job);
    if (next_pod != kNever) control.wake_at(next_pod);
  }

private:
  // Places one more pod of job j, if some node fits it.
  void schedule_pod(Control& c, JobId j) {
    const JobRequest& r = c.request(j);
    const JobState& st = c.state(j);
    if (is_host_task(r)) {
      // No device to score: its pods go whole to View::host_fit's nodes
      // (docs/runtime.md#host-tasks).
      if (st.status == JobStatus::kPending && c.host_fit(j)) c.start(j, {});
      return;
    }
    const std::uint32_t dpw = r.devices_per_worker;
    std::vector<DeviceTypeId> types;
    if (st.status == JobStatus::kBinding) {
      types.push_back(st.type);
    } else {
      auto span = c.compatible_types(j);
      types.assign(span.begin(), span.end());
    }
    // Quick refusal: not enough free devices anywhere (the usual case for a waiting pod).
    bool any = std::any_of(types.begin(), types.end(),
                           [&](DeviceTypeId t) { return c.free().free(t) >= dpw; });
    if (!any) return;
    const Cluster& cluster = c.cluster();
    double best_score = -1;
    NodeId best_node = 0;
    DeviceTypeId best_type = 0;
    if (Shape* sh = shape_for(c, j, types)) {
      // The same node as the scan below, from the shape's scores kept up to date.
      if (sh->order.empty()) return;
      best_node = sh->order.begin()->second;
      best_score = sh->order.begin()->first;
      best_type = sh->type[best_node];
    } else {
      for (NodeId n = 0; n < cluster.nodes.size(); ++n) {
        if (auto fit = fit_node(c, j, n, types)) {
          if (fit->first > best_score) {
            best_score = fit->first;
            best_node = n;
            best_type = fit->second;
          }
        }
      }
    }
    if (best_score < 0) return; // unschedulable for now
    std::vector<DeviceId> devices;
    const Node& node = cluster.nodes[best_node];
    for (DeviceId d = node.first_device;
         d < node.first_device + node.device_count && devices.size() < dpw; ++d) {
      if (cluster.devices[d].type == best_type && c.device(d).count == 0) devices.push_back(d);
    }
    c.bind(j, devices);
    const JobState& now = c.state(j);
    if (now.devices.size() / dpw == r.workers) {
      std::vector<DeviceId> all = now.devices;
      c.start(j, all);
    }
  }

  // The score of node n for one more pod of job j and the type it would use: the first of
  // `types` with room for the pod (devices, CPUs, memory), as placement does; none when no
  // type has room.
  [[nodiscard]] std::optional<std::pair<double, DeviceTypeId>>
  fit_node(const Control& c, JobId j, NodeId n, const std::vector<DeviceTypeId>& types) const {
    const std::uint32_t dpw = c.request(j).devices_per_worker;
    for (DeviceTypeId t : types) {
      if (c.free().free_on(n, t) < dpw || c.workers_fitting_on(j, n, t) < 1) continue;
      return std::make_pair(score_node(c, j, n, t), t);
    }
    return std::nullopt;
  }

  // What a node's fit and score for a pod depend on besides the node's free devices, CPUs and
  // memory: the types the pod may use and its request per worker. Pods of one shape share the
  // nodes' scores, kept from one pod to the next and recomputed only for the nodes the runtime
  // marked as changed since (View::changes): scoring every node per pod is the policy, and the
  // scores of unchanged nodes are the ones it would compute again.
  struct ByScore {
    bool operator()(const std::pair<double, NodeId>& a, const std::pair<double, NodeId>& b) const {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    }
  };
  struct Shape {
    std::vector<DeviceTypeId> types;
    std::uint32_t dpw = 0;
    double cpus = 0, mem_gb = 0;
    std::uint64_t stamp = 0; // View::changes().nodes.stamp() when last brought up to date
    bool built = false;
    std::vector<char> fits;         // [node]
    std::vector<double> score;      // [node], when it fits
    std::vector<DeviceTypeId> type; // [node], when it fits
    // Nodes that fit, best score first, then lower id: the scan's choice (the first node with
    // the highest score) is the first.
    std::set<std::pair<double, NodeId>, ByScore> order;
  };
  // Enough for the traces seen (a handful); a trace with more shapes scans for the rest.
  static constexpr std::size_t kMaxShapes = 64;

  // Job j's shape with every node's score up to date, or nullptr when too many shapes are kept.
  Shape* shape_for(const Control& c, JobId j, const std::vector<DeviceTypeId>& types) {
    const JobRequest& r = c.request(j);
    Shape* sh = nullptr;
    for (Shape& s : shapes_) {
      if (s.dpw == r.devices_per_worker && s.cpus == r.cpus_per_worker &&
          s.mem_gb == r.mem_gb_per_worker && s.types == types) {
        sh = &s;
        break;
      }
    }
    if (sh == nullptr) {
      if (shapes_.size() == kMaxShapes) return nullptr;
      sh = &shapes_.emplace_back();
      sh->types = types;
      sh->dpw = r.devices_per_worker;
      sh->cpus = r.cpus_per_worker;
      sh->mem_gb = r.mem_gb_per_worker;
    }
    const std::size_t nodes = c.cluster().nodes.size();
    auto update = [&](NodeId n) {
      if (sh->fits[n]) sh->order.erase({sh->score[n], n});
      auto fit = fit_node(c, j, n, types);
      sh->fits[n] = fit ? 1 : 0;
      if (!fit) return;
      sh->score[n] = fit->first;
      sh->type[n] = fit->second;
      sh->order.emplace(fit->first, n);
    };
    const ChangeLog& log = c.changes().nodes;
    if (!sh->built || !log.for_each_since(sh->stamp, update)) {
      sh->fits.assign(nodes, 0);
      sh->score.assign(nodes, 0);
      sh->type.assign(nodes, 0);
      sh->order.clear();
      for (NodeId n = 0; n < nodes; ++n)
        update(n);
      sh->built = true;
    }
    sh->stamp = log.stamp();
    return sh;
  }

  // NodeResourcesFit (least or most allocated) + NodeResourcesBalancedAllocation, each 0-100.
  [[nodiscard]] double score_node(const Control& c, JobId j, NodeId n, DeviceTypeId t) const {
    const JobRequest& r = c.request(j);
    const Node& node = c.cluster().nodes[n];
    const std::uint32_t capacity = capacity_of(c.cluster(), n, t);
    const double cap[3] = {static_cast<double>(capacity), node.cpu_cores, node.memory_gb};
    const double used[3] = {static_cast<double>(capacity - c.free().free_on(n, t)),
                            node.cpu_cores - c.node_cpu_free(n),
                            node.memory_gb - c.node_mem_free(n)};
    const double req[3] = {static_cast<double>(r.devices_per_worker), r.cpus_per_worker,
                           r.mem_gb_per_worker};
    double f[3];
    int k = 0;
    for (int i = 0; i < 3; ++i) {
      if (cap[i] > 0) f[k++] = std::min(1.0, (used[i] + req[i]) / cap[i]);
    }
    if (k == 0) return 0;
    double mean = 0;
    for (int i = 0; i < k; ++i)
      mean += f[i];
    mean /= k;
    double var = 0;
    for (int i = 0; i < k; ++i)
      var += (f[i] - mean) * (f[i] - mean);
    double fit = o_.most_allocated ? 100 * mean : 100 * (1 - mean);
    return fit + 100 * (1 - std::sqrt(var / k));
  }

  // Devices of each type per node, counted once per run: scoring asks for every node per pod.
  void count_capacity(const Cluster& cluster) {
    const std::size_t types = cluster.types.size();
    if (capacity_.size() == cluster.nodes.size() * types) return;
    capacity_.assign(cluster.nodes.size() * types, 0);
    for (const Device& d : cluster.devices)
      ++capacity_[static_cast<std::size_t>(d.node) * types + d.type];
  }
  [[nodiscard]] std::uint32_t capacity_of(const Cluster& cluster, NodeId n, DeviceTypeId t) const {
    return capacity_[static_cast<std::size_t>(n) * cluster.types.size() + t];
  }

  K8sDefaultOptions o_;
  std::set<JobId> waiting_;             // submitted, some pods not bound
  std::vector<std::uint32_t> capacity_; // [node * types + type]
  std::vector<Shape> shapes_;           // at most kMaxShapes; pointers held only within a pod
};

K8sDefaultOptions k8s_default_options(const PolicyParams& params) {
  K8sDefaultOptions o;
  o.pod_interval_s = params.seconds("pod_interval_s");
  if (!(o.pod_interval_s >= 0)) {
    throw InputError(
        fmt::format("policy.params.pod_interval_s: must be 0 or more, got {}", o.pod_interval_s));
  }
  check_seconds(o.pod_interval_s, "policy.params.pod_interval_s");
  std::string scoring = params.text("scoring");
  if (scoring == "LeastAllocated") {
    o.most_allocated = false;
  } else if (scoring == "MostAllocated") {
    o.most_allocated = true;
  } else {
    throw InputError(fmt::format(
        "policy.params.scoring: expected LeastAllocated or MostAllocated, got '{}'", scoring));
  }
  return o;
}

} // namespace

PolicyEntry k8s_default_policy() {
  return {"k8s-default",
          "Kubernetes' default scheduler: pods placed one at a time (spread by LeastAllocated), no "
          "gang: a partly placed job holds its devices idle and may deadlock",
          false,
          {{"pod_interval_s", ParamType::kSeconds, "0.1",
            "seconds between the creation of consecutive pods of a job"},
           {"scoring", ParamType::kText, "LeastAllocated",
            "NodeResourcesFit scoring: LeastAllocated (spread) or MostAllocated (pack)"}},
          [](const PolicySetup& s) {
            return std::make_unique<K8sDefault>(k8s_default_options(s.params));
          }};
}

} // namespace dlsim
