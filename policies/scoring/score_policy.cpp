// One policy class for the six scorers: the Kubernetes scheduling cycle of FGD's simulator
// (filter the nodes where the pod fits, score them, take the best, break ties by a node order
// drawn once per run, pick the GPU), over dlsim's actions: pack for a share of a GPU, start for
// whole GPUs, start_on_nodes for a job of no GPU (a host task).
#include "policies/scoring/score_policy.h"

#include "policies/scoring/scorers.h"
#include "sim/runtime/node_shares.h"
#include <bit>
#include <cstdint>
#include <limits>
#include <numeric>

namespace dlsim {

namespace {

class ScorePolicy final : public Policy {
public:
  ScorePolicy(Scorer scorer, bool retry, bool random_ties, bool oracle, double coverage, Rng rng,
              Rng order_rng)
      : scorer_(scorer), retry_(retry), random_ties_(random_ties || scorer == Scorer::kRandom),
        oracle_(oracle), coverage_(coverage), rng_(rng), order_rng_(order_rng) {}

  void on_arrival(JobId j, const View& view) override {
    if (scorer_ != Scorer::kFgd || oracle_) return;
    // The mix a scheduler can know: the shapes of the jobs seen so far, taken again each time
    // their count doubles (so the expected fragmentation is recomputed O(log jobs) times).
    seen_.push_back(shape_of(view, j));
    if (seen_.size() >= next_mix_) {
      mix_ = typical_shapes(seen_, coverage_);
      next_mix_ = seen_.size() * 2;
      frag_fresh_.assign(frag_fresh_.size(), false);
      ++mix_epoch_;
    }
  }

  void schedule(Control& control) override {
    refresh(control);
    ids_.assign(control.pending_jobs().begin(), control.pending_jobs().end());
    for (JobId j : ids_) {
      if (tried_.size() <= j) tried_.resize(j + 1, false);
      if (tried_[j] && !retry_) continue;
      tried_[j] = true;
      if (!place(control, j) && !retry_) control.cancel(j, "fits on no node");
    }
  }

private:
  void refresh(const View& view) {
    const Cluster& c = view.cluster();
    if (nodes_.empty()) {
      check_node_shares(c);
      nodes_.resize(c.nodes.size());
      for (NodeId n = 0; n < nodes_.size(); ++n)
        nodes_[n] = read_node(view, n);
      frag_.assign(nodes_.size(), 0.0);
      frag_fresh_.assign(nodes_.size(), false);
      node_version_.assign(nodes_.size(), 0);
      // The order that breaks ties: a uniform permutation of the nodes, drawn once (Fisher-Yates).
      rank_.resize(nodes_.size());
      std::iota(rank_.begin(), rank_.end(), 0U);
      if (!random_ties_) {
        for (std::size_t i = rank_.size(); i > 1; --i)
          std::swap(rank_[i - 1], rank_[order_rng_.below(i)]);
      }
      if (scorer_ == Scorer::kFgd && oracle_) {
        // FGD's rule: the typical pods of the whole pod list, known before the first arrival.
        const SimState& all = view.raw();
        std::vector<PodShape> shapes(all.jobs.size());
        for (JobId j = 0; j < shapes.size(); ++j)
          shapes[j] = shape_of(all, j);
        mix_ = typical_shapes(shapes, coverage_);
      }
    } else {
      auto reread = [&](std::uint32_t n) { reread_node(view, n); };
      if (!view.changes().nodes.for_each_since(node_stamp_, reread)) {
        for (NodeId n = 0; n < nodes_.size(); ++n)
          reread_node(view, n);
      }
      // A job's change of share on a device with no CPU or memory change leaves no node mark.
      auto job_nodes = [&](std::uint32_t j) {
        for (DeviceId d : view.state(j).devices)
          reread_node(view, c.devices[d].node);
        if (j < placed_on_.size() && placed_on_[j] != kNoNode) reread_node(view, placed_on_[j]);
      };
      if (!view.changes().jobs.for_each_since(job_stamp_, job_nodes)) {
        for (NodeId n = 0; n < nodes_.size(); ++n)
          reread_node(view, n);
      }
    }
    node_stamp_ = view.changes().nodes.stamp();
    job_stamp_ = view.changes().jobs.stamp();
  }

  void reread_node(const View& view, NodeId n) {
    nodes_[n] = read_node(view, n);
    frag_fresh_[n] = false;
    node_version_[n] = ++clock_;
  }

  // FGD's score of node n for shape s, kept per (shape, node) until the node or the mix
  // changes: a node's score is recomputed only after it changed, which makes a decision cost
  // O(nodes) lookups plus the scores of the nodes changed since the shape was last placed.
  FgdChoice fgd_cached(NodeId n, std::size_t shape, const PodShape& s) {
    Cached& c = cache_[shape * nodes_.size() + n];
    if (c.version != node_version_[n] || c.epoch != mix_epoch_) {
      c.choice = fgd_score(nodes_[n], s, mix_, frag_before(n));
      c.version = node_version_[n];
      c.epoch = mix_epoch_;
    }
    return c.choice;
  }

  std::size_t shape_index(const PodShape& s) {
    for (std::size_t i = 0; i < cached_shapes_.size(); ++i)
      if (cached_shapes_[i] == s) return i;
    cached_shapes_.push_back(s);
    cache_.resize(cached_shapes_.size() * nodes_.size());
    return cached_shapes_.size() - 1;
  }

  double frag_before(NodeId n) {
    if (!frag_fresh_[n]) {
      frag_[n] = expected_frag_milli(nodes_[n], mix_);
      frag_fresh_[n] = true;
    }
    return frag_[n];
  }

  // One worker: the node (and for a share, the GPU) the scorer picks, or nullopt.
  struct Pick {
    NodeId node = 0;
    std::uint32_t gpu = 0;
  };
  std::optional<Pick> pick(const PodShape& s) {
    const std::size_t shape = scorer_ == Scorer::kFgd ? shape_index(s) : 0;
    feasible_.clear();
    scores_.clear();
    gpus_.clear();
    for (NodeId n = 0; n < nodes_.size(); ++n) {
      const NodeShares& node = nodes_[n];
      if (!fits(node, s)) continue;
      std::int64_t score = 0;
      std::uint32_t gpu = 0;
      switch (scorer_) {
      case Scorer::kRandom:
        break;
      case Scorer::kDotProduct:
        score = dot_product_score(node, s);
        break;
      case Scorer::kGpuClustering:
        score = gpu_clustering_score(node, s);
        break;
      case Scorer::kGpuPacking:
        score = gpu_packing_score(node, s);
        break;
      case Scorer::kBestFit:
        score = best_fit_score(node, s);
        break;
      case Scorer::kFgd: {
        FgdChoice c = fgd_cached(n, shape, s);
        score = c.score;
        gpu = c.gpu;
        break;
      }
      }
      feasible_.push_back(n);
      scores_.push_back(score);
      gpus_.push_back(gpu);
    }
    if (feasible_.empty()) return std::nullopt;
    if (scorer_ == Scorer::kBestFit) normalize_scores(scores_);
    // Kubernetes' selectHost: the highest score. Among equals, the node first in rank_, as in
    // FGD's simulator: its Kubernetes fork (mental2008/kubernetes v1.20.5-minor,
    // core/generic_scheduler.go, selectHost) takes the smallest node name "for
    // reproducibility", and the simulator prefixes every node's name with its place in a
    // permutation drawn once per run (pkg/simulator/simulator.go, syncClusterResourceList:
    // rand.Perm, "%04d-"). With random_ties (upstream Kubernetes; the Random scorer, whose
    // scores are all equal), drawn uniformly by reservoir sampling at each decision.
    std::size_t chosen = 0;
    std::uint64_t ties = 1;
    for (std::size_t i = 1; i < feasible_.size(); ++i) {
      if (scores_[i] > scores_[chosen]) {
        chosen = i;
        ties = 1;
      } else if (scores_[i] == scores_[chosen]) {
        if (random_ties_ ? rng_.below(++ties) == 0
                         : rank_[feasible_[i]] < rank_[feasible_[chosen]]) {
          chosen = i;
        }
      }
    }
    Pick p{feasible_[chosen], gpus_[chosen]};
    if (s.is_share() && scorer_ != Scorer::kFgd) {
      const NodeShares& node = nodes_[p.node];
      if (scorer_ == Scorer::kRandom) {
        // Random fit: a GPU drawn uniformly among those that can take the share.
        std::uint64_t seen = 0;
        for (std::uint32_t g = 0; g < node.gpus; ++g)
          if (node.usable(g, s) >= s.gpu_milli && rng_.below(++seen) == 0) p.gpu = g;
      } else {
        p.gpu = *best_fit_gpu(node, s);
      }
    }
    return p;
  }

  // Places every worker of j, or none; true when it started. A gang runs on one device type:
  // the first worker's type binds the others (FGD's pods are independent; the workers of a job
  // of "any GPU" would otherwise mix types, which the runtime refuses). When the gang does not
  // fit on that type, each other type it accepts is tried alone, as a node selector per type
  // would be; without this a gang that fits only on a type its first worker did not pick would
  // wait for ever.
  bool place(Control& control, JobId j) {
    const PodShape shape = shape_of(control, j);
    std::int32_t bound = -1;
    if (try_place(control, j, shape, bound)) return true;
    if (bound < 0 || std::popcount(shape.types) < 2) return false;
    for (std::uint32_t t = 0; t < 64; ++t) {
      if (!(shape.types >> t & 1U) || static_cast<std::int32_t>(t) == bound) continue;
      PodShape one = shape;
      one.types = std::uint64_t{1} << t;
      std::int32_t unused = -1;
      if (try_place(control, j, one, unused)) return true;
    }
    return false;
  }

  // One attempt at every worker of j with shape `shape`; `bound` gets the device type the first
  // worker took (-1 if none). The scratch nodes are read again from the cluster afterwards.
  bool try_place(Control& control, JobId j, PodShape s, std::int32_t& bound) {
    const std::uint32_t workers = control.request(j).workers;
    std::vector<DeviceId> devices;
    std::vector<NodeId> hosts;
    touched_.clear();
    bool ok = true;
    for (std::uint32_t w = 0; w < workers && ok; ++w) {
      auto p = pick(s);
      if (!p) {
        ok = false;
        break;
      }
      NodeShares& node = nodes_[p->node];
      std::vector<std::uint32_t> gpus;
      if (s.is_share()) {
        gpus.push_back(p->gpu);
      } else if (s.gpus > 0) {
        gpus = exclusive_gpus(node, s);
      }
      for (std::uint32_t g : gpus)
        devices.push_back(node.device[g]);
      if (!gpus.empty()) {
        bound = static_cast<std::int32_t>(node.type[gpus.front()]);
        s.types = std::uint64_t{1} << node.type[gpus.front()];
      }
      if (s.gpus == 0) hosts.push_back(p->node);
      // The job's next worker sees this one's resources taken, and not its GPUs again.
      node = after(node, s, gpus);
      for (std::uint32_t g : gpus)
        node.open[g] = false;
      frag_fresh_[p->node] = false;
      node_version_[p->node] = ++clock_;
      touched_.push_back(p->node);
    }
    if (ok) {
      const char* why = "highest score";
      if (s.gpus == 0) {
        control.start_on_nodes(j, hosts, why);
      } else if (s.is_share()) {
        control.pack(j, devices, why);
      } else {
        control.start(j, devices, why);
      }
      if (placed_on_.size() <= j) placed_on_.resize(j + 1, kNoNode);
      placed_on_[j] = touched_.front();
    }
    for (NodeId n : touched_)
      reread_node(control, n);
    return ok;
  }

  static constexpr NodeId kNoNode = std::numeric_limits<NodeId>::max();

  Scorer scorer_;
  bool retry_;
  bool random_ties_;
  bool oracle_;
  double coverage_;
  Rng rng_;
  Rng order_rng_;
  std::vector<std::uint32_t> rank_; // node n's place in the order that breaks ties
  std::vector<NodeShares> nodes_;
  std::vector<double> frag_; // expected fragmentation of nodes_[n] under mix_
  std::vector<bool> frag_fresh_;
  std::uint64_t node_stamp_ = 0;
  std::uint64_t job_stamp_ = 0;
  ShapeMix mix_;
  std::vector<PodShape> seen_;
  std::size_t next_mix_ = 1;
  std::vector<bool> tried_;
  std::vector<NodeId> placed_on_;
  // fgd_cached's: a stamp per node, bumped when it is read again, and one entry per (shape, node).
  struct Cached {
    std::uint64_t version = ~std::uint64_t{0};
    std::uint64_t epoch = 0;
    FgdChoice choice;
  };
  std::vector<std::uint64_t> node_version_;
  std::uint64_t clock_ = 0;
  std::uint64_t mix_epoch_ = 0;
  std::vector<PodShape> cached_shapes_;
  std::vector<Cached> cache_;
  // Scratch, kept to avoid allocating per decision.
  std::vector<JobId> ids_;
  std::vector<NodeId> feasible_;
  std::vector<std::int64_t> scores_;
  std::vector<std::uint32_t> gpus_;
  std::vector<NodeId> touched_;
};

ParamSpec retry_param() {
  return {"retry", ParamType::kFlag, "false",
          "Keep a job that fits on no node pending and try it again at every decision "
          "(Kubernetes' queue); false cancels it at once, as a pod fails in FGD's simulator."};
}

ParamSpec random_ties_param() {
  return {"random_ties", ParamType::kFlag, "false",
          "Draw among the nodes of the highest score uniformly at each decision, as upstream "
          "Kubernetes' selectHost does; false takes the first in an order of the nodes drawn "
          "once per run, as FGD's simulator does (the smallest of its randomly prefixed node "
          "names)."};
}

PolicyEntry entry(Scorer scorer, std::string name, std::string description) {
  return {std::move(name), std::move(description), false,
          scorer == Scorer::kRandom ? std::vector<ParamSpec>{retry_param()}
                                    : std::vector<ParamSpec>{retry_param(), random_ties_param()},
          [scorer](const PolicySetup& s) {
            const bool random_ties = scorer != Scorer::kRandom && s.params.flag("random_ties");
            return std::make_unique<ScorePolicy>(scorer, s.params.flag("retry"), random_ties, false,
                                                 0.95, policy_rng(s, to_string(scorer)),
                                                 policy_rng(s, to_string(scorer) + ".node_order"));
          }};
}

} // namespace

PolicyEntry score_random_policy() {
  return entry(Scorer::kRandom, "score-random",
               "FGD paper's Random: each job on a feasible node drawn uniformly, a share on a "
               "GPU drawn uniformly");
}

PolicyEntry score_dot_product_policy() {
  return entry(Scorer::kDotProduct, "score-dot-product",
               "FGD paper's DotProd (Tetris): the node whose free CPU and GPU align least with "
               "the request; a share by best fit");
}

PolicyEntry score_gpu_clustering_policy() {
  return entry(Scorer::kGpuClustering, "score-gpu-clustering",
               "FGD paper's GpuClustering: jobs of one kind (share, k GPUs) on the same nodes; "
               "a share by best fit");
}

PolicyEntry score_gpu_packing_policy() {
  return entry(Scorer::kGpuPacking, "score-gpu-packing",
               "FGD paper's GpuPacking: shared GPUs first, then used nodes, then free ones; a "
               "share by best fit");
}

PolicyEntry score_best_fit_policy() {
  return entry(Scorer::kBestFit, "score-best-fit",
               "FGD paper's BestFit: the node with the least CPU and GPU left; a share by best "
               "fit");
}

PolicyEntry fgd_policy() {
  return {"fgd",
          "Fragmentation Gradient Descent (Weng et al., ATC'23): the node and GPU where the "
          "expected fragmentation under the workload's typical shapes grows least",
          true,
          {retry_param(),
           random_ties_param(),
           {"oracle", ParamType::kFlag, "false",
            "Take the typical shapes from every job of the workload, arrived or not (FGD's "
            "simulator reads the whole pod list); false: from the jobs arrived so far, again "
            "each time their count doubles."},
           {"coverage", ParamType::kNumber, "0.95",
            "The typical shapes: the most frequent, until they cover this share of the jobs "
            "(FGD: 95%).",
            ParamRange{0.0, 1.0, true}}},
          [](const PolicySetup& s) {
            return std::make_unique<ScorePolicy>(
                Scorer::kFgd, s.params.flag("retry"), s.params.flag("random_ties"),
                s.params.flag("oracle"), s.params.number("coverage"), policy_rng(s, "fgd"),
                policy_rng(s, "fgd.node_order"));
          }};
}

} // namespace dlsim
