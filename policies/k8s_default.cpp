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
// a pod that fits nowhere waits and is retried at the next event (in effect: the policy skips
// the retries sure to fail, as kube-scheduler's unschedulable queue does; see K8sDefault). The job
// starts computing when its last pod is bound. There is no preemption among equal priorities and no
// gang: nothing ever unbinds a partly placed job.
#include "policies/k8s_default.h"

#include "policies/node_score_order.h"
#include "policies/node_snapshot.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace dlsim {

namespace {

// Built from the resolved parameters (k8s_default_options); the defaults are declared in
// k8s_default_policy() only.
struct K8sDefaultOptions {
  double pod_interval_s = 0;   // between the creation of consecutive pods of one job
  bool most_allocated = false; // NodeResourcesFit scoring: MostAllocated instead of LeastAllocated
};

// A pod's place in the scheduling queue, PrioritySort order: higher priority, then older, ties
// to the lower job id, then the lower pod index.
struct PodKey {
  std::int64_t neg_priority = 0;
  SimTime created = 0;
  JobId job = 0;
  std::uint32_t index = 0;
  [[nodiscard]] auto tie() const { return std::tie(neg_priority, created, job, index); }
  bool operator<(const PodKey& o) const { return tie() < o.tie(); }
};

// What a pod's fit on a node depends on besides the node's free devices, CPUs and memory: the
// types it may use (a binding job's: the type its bound pods have) and its request per worker;
// for a host task (a CPU-only pod), whose workers View::host_fit places all at once, its worker
// count instead of types.
struct ShapeKey {
  bool host = false;
  std::uint32_t workers = 0; // host tasks only
  std::vector<DeviceTypeId> types;
  std::uint32_t dpw = 0;
  double cpus = 0;
  double mem_gb = 0;
  [[nodiscard]] auto tie() const { return std::tie(host, workers, types, dpw, cpus, mem_gb); }
  bool operator<(const ShapeKey& o) const { return tie() < o.tie(); }
};

// The scheduling queue (kube-scheduler's activeQ and unschedulable pods) is kept across
// decisions, per shape: the created pods of the waiting jobs, one per job (its next pod: a job's
// pods are bound in index order), in PrioritySort order.
//
// Why skipping an unschedulable shape is exact. Trying a pod that fits nowhere has no effect
// (no action, no wake-up; only caches of scores), so a pod may be skipped whenever its try is
// sure to find no node. A device pod fits node n when one of its types t has free_on(n, t) >=
// devices per worker and View::workers_fitting_on(n, t) >= 1: non-decreasing in the node's free
// devices of each type, free CPUs and free memory, and a function of the shape and the node
// alone. A host task fits when the nodes' workers_fitting_on add up to its workers: also
// non-decreasing in every node's free CPUs and memory. The policy keeps, per node, the free
// devices per type, CPUs and memory as it last read them (the snapshot, NodeSnapshot); it reads
// every node the runtime's change log marks (View::changes) at each decision's start and after each
// of its own actions, and calls a node "gained" when one of those values went up. A shape is marked
// unschedulable when a try found no node; then no node fits it at its snapshot values. The mark
// is lifted when a gained node fits it (a host task: when a gained node takes one of its
// workers); otherwise every node's values are at most the snapshot's that did not fit, so none
// fits now. The pods of an unschedulable shape are skipped; a pod created since joins its
// shape's queue and is skipped likewise. Binding takes devices, CPUs and memory only, so within
// a decision resources only shrink, and one failed try stands for the rest of the shape's pods
// in that decision, as the full scan would find. The one action that returns anything within a
// decision is the start of a job whose last pod was bound (the runtime releases its bound
// devices, CPUs and memory and takes them again: floating-point sums may come back an ulp
// higher); if that lifts a mark, the rest of the decision runs as the full scan does
// (finish_as_scan) and every mark is dropped.
class K8sDefault final : public Policy {
public:
  explicit K8sDefault(K8sDefaultOptions o) : o_(o) {}

  void on_arrival(JobId j, const View& v) override {
    if (jobs_.size() < v.job_count()) jobs_.resize(v.job_count());
    jobs_[j] = WaitingJob{};
    jobs_[j].waiting = true;
    arrived_.push_back(j);
  }
  void on_finish(JobId j, const View& v) override {
    if (j < jobs_.size() && jobs_[j].waiting) leave(v, j);
  }

  void schedule(Control& control) override {
    prepare(control);
    ++decision_;
    take_arrivals(control);
    // The earliest pod not created yet, read before any action: the wake-up of the scan over
    // every waiting job, which included the jobs this decision starts.
    const SimTime next_pod = create_pods(control);
    absorb_changes(control);
    run_queue(control);
    if (next_pod != kNever) control.wake_at(next_pod);
  }

private:
  struct WaitingJob {
    SimTime front_created = 0;  // creation time of pod `bound`, while queued
    std::uint32_t shape = 0;    // of its next pod, once taken in (arrival seen)
    std::uint32_t created = 0;  // pods created so far
    std::uint32_t bound = 0;    // pods bound (0 for a host task)
    std::uint32_t decision = 0; // the decision whose binds binds_now counts
    std::uint32_t binds_now = 0;
    bool waiting = false; // submitted, some pods not bound
    bool has_shape = false;
    bool queued = false; // its pod `bound` is in its shape's queue
  };

  // A creation to come: pod `index` of a job (one per job at a time).
  struct Creation {
    SimTime at;
    JobId job;
    std::uint32_t index;
    bool operator>(const Creation& o) const {
      return std::tie(at, job, index) > std::tie(o.at, o.job, o.index);
    }
  };

  struct QueueShape {
    ShapeKey key;
    JobId rep = 0;             // a job with this shape (the View's fit functions take a job)
    std::set<PodKey> queue;    // the created next pods of its waiting jobs
    std::uint32_t members = 0; // waiting jobs whose next pod has this shape
    bool unschedulable = false;
    bool merged = false; // in merge_, at merge_key
    PodKey merge_key;
    int scores = -1; // its node scores in scores_, when it has some
  };

  // Pods of one shape share the nodes' scores (NodeScoreOrder): scoring every node per pod is
  // the policy, and the scores of the nodes that did not change are the ones it would compute
  // again.
  // Enough for the traces seen (a handful); a trace with more shapes scans for the rest.
  static constexpr std::size_t kMaxScored = 64;

  static bool waiting_status(JobStatus s) {
    return s == JobStatus::kPending || s == JobStatus::kBinding;
  }

  [[nodiscard]] SimTime pod_created(const JobRequest& r, std::uint32_t k) const {
    return r.submit + from_seconds(o_.pod_interval_s * k, "policy.params.pod_interval_s x pod");
  }
  [[nodiscard]] PodKey front_key(const View& v, JobId j) const {
    const WaitingJob& w = jobs_[j];
    return PodKey{-static_cast<std::int64_t>(v.request(j).priority), w.front_created, j, w.bound};
  }

  void prepare(const Control& c) {
    if (snapshot_.empty()) snapshot_.read_all(c);
  }

  // The id of the shape `key`, job j's.
  [[nodiscard]] std::uint32_t shape_id(ShapeKey key, JobId j) {
    auto [it, fresh] = shape_ids_.try_emplace(key, static_cast<std::uint32_t>(shapes_.size()));
    if (fresh) {
      shapes_.emplace_back();
      shapes_.back().key = std::move(key);
      shapes_.back().rep = j;
    }
    return it->second;
  }
  // The shape of job j's next pod.
  [[nodiscard]] std::uint32_t shape_of(const View& v, JobId j) {
    const JobRequest& r = v.request(j);
    const RequestDetails& rd = v.details(j);
    const JobState& st = v.state(j);
    ShapeKey key;
    key.cpus = rd.cpus_per_worker;
    key.mem_gb = rd.mem_gb_per_worker;
    if (is_host_task(r)) {
      key.host = true;
      key.workers = r.workers;
      return shape_id(std::move(key), j);
    }
    key.dpw = r.devices_per_worker;
    if (st.status == JobStatus::kBinding) {
      key.types.push_back(st.type);
    } else {
      auto span = v.compatible_types(j);
      key.types.assign(span.begin(), span.end());
    }
    return shape_id(std::move(key), j);
  }

  void take_arrivals(const Control& c) {
    for (JobId j : arrived_) {
      WaitingJob& w = jobs_[j];
      if (!w.waiting) continue; // ended before its first decision
      w.shape = shape_of(c, j);
      w.has_shape = true;
      ++shapes_[w.shape].members;
      if (c.request(j).workers > 0) push_creation(c, j, 0);
    }
    arrived_.clear();
  }

  void push_creation(const View& v, JobId j, std::uint32_t index) {
    creations_.push_back(Creation{pod_created(v.request(j), index), j, index});
    std::push_heap(creations_.begin(), creations_.end(), std::greater<>());
  }

  // Creates the pods due by now (each job's next pod joins its shape's queue when it is the
  // first unbound one); returns the creation time of the earliest pod still to come among the
  // waiting jobs, kNever when none.
  SimTime create_pods(const Control& c) {
    const SimTime now = c.now();
    while (!creations_.empty()) {
      const Creation top = creations_.front();
      const bool live = alive(c, top.job) && jobs_[top.job].created == top.index;
      if (live && top.at > now) return top.at;
      std::pop_heap(creations_.begin(), creations_.end(), std::greater<>());
      creations_.pop_back();
      if (!live) continue;
      WaitingJob& w = jobs_[top.job];
      w.created = top.index + 1;
      if (w.bound == top.index) enqueue(c, top.job, top.at);
      if (w.created < c.request(top.job).workers) push_creation(c, top.job, w.created);
    }
    return kNever;
  }

  // Job j's pod `bound`, created at `created`, into its shape's queue.
  void enqueue(const View& v, JobId j, SimTime created) {
    WaitingJob& w = jobs_[j];
    w.front_created = created;
    w.queued = true;
    shapes_[w.shape].queue.insert(front_key(v, j));
    refresh_merge(w.shape);
  }

  // Whether job j still waits for pods to be placed (the scan's test); forgets it when not.
  bool alive(const View& v, JobId j) {
    if (!jobs_[j].waiting) return false;
    if (waiting_status(v.state(j).status)) return true;
    leave(v, j);
    return false;
  }

  void leave(const View& v, JobId j) {
    WaitingJob& w = jobs_[j];
    if (!w.waiting) return;
    if (w.has_shape) {
      QueueShape& s = shapes_[w.shape];
      if (w.queued) s.queue.erase(front_key(v, j));
      --s.members;
      refresh_merge(w.shape);
    }
    w.waiting = false;
    w.queued = false;
  }

  // ---- what changed on the nodes -------------------------------------------------------------

  // Reads the nodes marked since the last read into the snapshot; lifts the unschedulable mark
  // of each shape that a node which gained could now take. True when a mark was lifted.
  bool absorb_changes(const View& v) {
    const std::vector<NodeId>& gained = snapshot_.read_changes(v);
    if (gained.empty()) return false;
    bool lifted = false;
    for (std::size_t i = 0; i < unschedulable_.size();) {
      const std::uint32_t sid = unschedulable_[i];
      QueueShape& s = shapes_[sid];
      // A shape no job waits with needs no mark: its next pod gets tried.
      const bool lift = s.members == 0 || std::any_of(gained.begin(), gained.end(),
                                                      [&](NodeId n) { return may_fit(v, sid, n); });
      if (!lift) {
        ++i;
        continue;
      }
      lifted = lifted || s.members > 0;
      s.unschedulable = false;
      unschedulable_[i] = unschedulable_.back();
      unschedulable_.pop_back();
    }
    return lifted;
  }

  // Whether a pod of shape sid fits node n (a host task: whether n takes one of its workers).
  [[nodiscard]] bool may_fit(const View& v, std::uint32_t sid, NodeId n) const {
    const QueueShape& s = shapes_[sid];
    if (s.key.host) return v.workers_fitting_on(s.rep, n, 0) >= 1;
    return fits_node(v, s.rep, n, s.key.types);
  }

  void mark_unschedulable(std::uint32_t sid) {
    QueueShape& s = shapes_[sid];
    s.unschedulable = true;
    unschedulable_.push_back(sid);
    refresh_merge(sid);
  }

  // ---- one decision ------------------------------------------------------------------------

  // merge_ holds, during a decision, the first queued pod of every shape not unschedulable: the
  // next pod to try is the first of them, the pod the scan over every pod would try next.
  void refresh_merge(std::uint32_t sid) {
    QueueShape& s = shapes_[sid];
    if (s.merged) {
      merge_.erase({s.merge_key, sid});
      s.merged = false;
    }
    if (!merging_ || s.unschedulable || s.queue.empty()) return;
    s.merge_key = *s.queue.begin();
    merge_.emplace(s.merge_key, sid);
    s.merged = true;
  }

  void run_queue(Control& c) {
    merging_ = true;
    for (std::uint32_t sid = 0; sid < shapes_.size(); ++sid)
      refresh_merge(sid);
    while (!merge_.empty()) {
      const auto [key, sid] = *merge_.begin();
      const JobId j = key.job;
      if (!alive(c, j)) continue; // leave took it out of the merge
      if (!try_pod(c, j, sid)) {
        mark_unschedulable(sid);
        continue;
      }
      placed(c, j, sid);
      if (absorb_changes(c)) {
        finish_as_scan(c, key);
        break;
      }
    }
    merging_ = false;
    for (const auto& [key, sid] : merge_)
      shapes_[sid].merged = false;
    merge_.clear();
  }

  // Job j's next pod, of shape sid, was bound (or the host task started): its next pod, if
  // created, queues in its shape, which changes when its first pod fixes its device type.
  void placed(const Control& c, JobId j, std::uint32_t sid) {
    WaitingJob& w = jobs_[j];
    if (w.decision != decision_) {
      w.decision = decision_;
      w.binds_now = 0;
    }
    ++w.binds_now;
    if (w.queued) shapes_[sid].queue.erase(front_key(c, j));
    w.queued = false;
    refresh_merge(sid);
    const JobState& st = c.state(j);
    if (!waiting_status(st.status)) { // started
      leave(c, j);
      return;
    }
    const JobRequest& r = c.request(j);
    w.bound = static_cast<std::uint32_t>(st.devices.size() / r.devices_per_worker);
    const auto& types = shapes_[sid].key.types;
    if (types.size() != 1 || types[0] != st.type) {
      --shapes_[sid].members;
      w.shape = shape_of(c, j);
      ++shapes_[w.shape].members;
    }
    if (w.bound < w.created) enqueue(c, j, pod_created(r, w.bound));
  }

  // The rest of a decision in which a start gave resources back (see the class comment): every
  // pod position the scan over all pods still had after `cursor`, tried in its order. Job j's
  // positions were its pods from the first unbound at the decision's start to the last created
  // one; each try places one more pod of j, if it fits.
  void finish_as_scan(Control& c, const PodKey& cursor) {
    merging_ = false;
    for (const auto& [key, sid] : merge_)
      shapes_[sid].merged = false;
    merge_.clear();
    std::vector<PodKey> rest;
    for (const QueueShape& s : shapes_) {
      for (const PodKey& front : s.queue) {
        const JobId j = front.job;
        const WaitingJob& w = jobs_[j];
        const JobRequest& r = c.request(j);
        const std::uint32_t first = w.bound - (w.decision == decision_ ? w.binds_now : 0);
        for (std::uint32_t k = first; k < w.created; ++k) {
          PodKey p{front.neg_priority, pod_created(r, k), j, k};
          if (cursor < p) rest.push_back(p);
        }
      }
    }
    std::sort(rest.begin(), rest.end());
    for (const PodKey& p : rest) {
      if (!alive(c, p.job)) continue;
      const std::uint32_t sid = jobs_[p.job].shape;
      if (try_pod(c, p.job, sid)) placed(c, p.job, sid);
    }
    // Nothing is known to stay unschedulable: each shape is tried again.
    for (std::uint32_t sid : unschedulable_)
      shapes_[sid].unschedulable = false;
    unschedulable_.clear();
    absorb_changes(c);
  }

  // Places job j's next pod (shape sid) if some node fits it: kube-scheduler's filter and
  // score for one pod. False, with no effect, when none does.
  bool try_pod(Control& c, JobId j, std::uint32_t sid) {
    const QueueShape& s = shapes_[sid];
    if (s.key.host) {
      // No device to score: its pods go whole to View::host_fit's nodes
      // (docs/runtime.md#host-tasks).
      if (!c.host_fit(j)) return false;
      c.start(j, {});
      return true;
    }
    const std::uint32_t dpw = s.key.dpw;
    const std::vector<DeviceTypeId>& types = s.key.types;
    // Quick refusal: not enough free devices anywhere.
    bool any = std::any_of(types.begin(), types.end(),
                           [&](DeviceTypeId t) { return c.free().free(t) >= dpw; });
    if (!any) return false;
    const Cluster& cluster = c.cluster();
    double best_score = -1;
    NodeId best_node = 0;
    DeviceTypeId best_type = 0;
    if (NodeScoreOrder* order = scores_for(c, j, sid)) {
      // The same node as the scan below, from the shape's scores kept up to date.
      const auto best = order->best();
      if (!best) return false;
      best_node = best->first;
      best_score = best->second.score;
      best_type = best->second.type;
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
    if (best_score < 0) return false;
    std::vector<DeviceId> devices;
    const Node& node = cluster.nodes[best_node];
    for (DeviceId d = node.first_device;
         d < node.first_device + node.device_count && devices.size() < dpw; ++d) {
      if (cluster.devices[d].type == best_type && c.device(d).count == 0) devices.push_back(d);
    }
    c.bind(j, devices);
    const JobState& now = c.state(j);
    if (now.devices.size() / dpw == c.request(j).workers) {
      std::vector<DeviceId> all = now.devices.to_vector();
      c.start(j, all);
    }
    return true;
  }

  // Whether node n has room for one more pod of job j on one of `types`.
  [[nodiscard]] static bool fits_node(const View& v, JobId j, NodeId n,
                                      const std::vector<DeviceTypeId>& types) {
    const std::uint32_t dpw = v.request(j).devices_per_worker;
    return std::any_of(types.begin(), types.end(), [&](DeviceTypeId t) {
      return v.free().free_on(n, t) >= dpw && v.workers_fitting_on(j, n, t) >= 1;
    });
  }

  // The score of node n for one more pod of job j and the type it would use: the first of
  // `types` with room for the pod (devices, CPUs, memory), as placement does; none when no
  // type has room.
  [[nodiscard]] std::optional<std::pair<double, DeviceTypeId>>
  fit_node(const View& c, JobId j, NodeId n, const std::vector<DeviceTypeId>& types) const {
    const std::uint32_t dpw = c.request(j).devices_per_worker;
    for (DeviceTypeId t : types) {
      if (c.free().free_on(n, t) < dpw || c.workers_fitting_on(j, n, t) < 1) continue;
      return std::make_pair(score_node(c, j, n, t), t);
    }
    return std::nullopt;
  }

  // Shape sid's node scores brought up to date (job j has the shape), or nullptr when
  // kMaxScored shapes already keep scores.
  NodeScoreOrder* scores_for(const View& c, JobId j, std::uint32_t sid) {
    QueueShape& s = shapes_[sid];
    if (s.scores < 0) {
      if (scores_.size() == kMaxScored) return nullptr;
      s.scores = static_cast<int>(scores_.size());
      scores_.emplace_back();
    }
    NodeScoreOrder& order = scores_[static_cast<std::size_t>(s.scores)];
    order.refresh(c.changes().nodes, c.cluster().nodes.size(),
                  [&](NodeId n) -> std::optional<NodeScoreOrder::Fit> {
                    auto fit = fit_node(c, j, n, s.key.types);
                    if (!fit) return std::nullopt;
                    return NodeScoreOrder::Fit{fit->first, fit->second};
                  });
    return &order;
  }

  // NodeResourcesFit (least or most allocated) + NodeResourcesBalancedAllocation, each 0-100.
  [[nodiscard]] double score_node(const View& c, JobId j, NodeId n, DeviceTypeId t) const {
    const JobRequest& r = c.request(j);
    const RequestDetails& rd = c.details(j);
    const Node& node = c.cluster().nodes[n];
    const std::uint32_t capacity = snapshot_.capacity(n, t);
    const double cap[3] = {static_cast<double>(capacity), node.cpu_cores, node.memory_gb};
    const double used[3] = {static_cast<double>(capacity - c.free().free_on(n, t)),
                            node.cpu_cores - c.node_cpu_free(n),
                            node.memory_gb - c.node_mem_free(n)};
    const double req[3] = {static_cast<double>(r.devices_per_worker), rd.cpus_per_worker,
                           rd.mem_gb_per_worker};
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

  K8sDefaultOptions o_;
  std::vector<WaitingJob> jobs_;    // [job]
  std::vector<JobId> arrived_;      // since the last decision
  std::vector<Creation> creations_; // min-heap by time
  std::map<ShapeKey, std::uint32_t> shape_ids_;
  std::vector<QueueShape> shapes_;           // [shape id]
  std::vector<std::uint32_t> unschedulable_; // shape ids, any order
  std::set<std::pair<PodKey, std::uint32_t>> merge_;
  bool merging_ = false;
  std::uint32_t decision_ = 0;
  NodeSnapshot snapshot_;
  std::vector<NodeScoreOrder> scores_; // at most kMaxScored
};

K8sDefaultOptions k8s_default_options(const PolicyParams& params) {
  K8sDefaultOptions o;
  o.pod_interval_s = params.seconds("pod_interval_s");
  check_seconds(o.pod_interval_s, "policy.params.pod_interval_s");
  o.most_allocated = params.text("scoring") == "MostAllocated";
  return o;
}

} // namespace

PolicyEntry k8s_default_policy() {
  return {"k8s-default",
          "Kubernetes' default scheduler: pods placed one at a time (spread by LeastAllocated), no "
          "gang: a partly placed job holds its devices idle and may deadlock",
          false,
          {{"pod_interval_s",
            ParamType::kSeconds,
            "0.1",
            "seconds between the creation of consecutive pods of a job",
            {.min = 0}},
           {"scoring",
            ParamType::kText,
            "LeastAllocated",
            "NodeResourcesFit scoring: LeastAllocated (spread) or MostAllocated (pack)",
            {.choices = {"LeastAllocated", "MostAllocated"}}}},
          [](const PolicySetup& s) {
            return std::make_unique<K8sDefault>(k8s_default_options(s.params));
          }};
}

} // namespace dlsim
