// One policy class for the six scorers: the Kubernetes scheduling cycle of FGD's simulator
// (filter the nodes where the pod fits, score them, take the best, break ties by a node order
// drawn once per run, pick the GPU), over dlsim's actions: pack for a share of a GPU, start for
// whole GPUs, start_on_nodes for a job of no GPU (a host task).
#include "policies/scoring/score_policy.h"

#include "policies/node_shares_copy.h"
#include "policies/scoring/scorers.h"

#include <bit>
#include <cstdint>
#include <numeric>
#include <span>

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
      ++mix_epoch_;
    }
  }

  // The pending jobs one at a time in arrival order, as FGD's simulator schedules its pods; one
  // that fits nowhere is cancelled (a failed pod) unless retry_ keeps it for the next decision.
  void schedule(Control& control) override {
    if (nodes_.empty()) first_decision(control);
    nodes_.refresh(control);
    ids_.assign(control.pending_jobs().begin(), control.pending_jobs().end());
    for (JobId j : ids_) {
      if (tried_.size() <= j) tried_.resize(j + 1, false);
      if (tried_[j] && !retry_) continue;
      tried_[j] = true;
      if (!place(control, j) && !retry_) control.cancel(j, "fits on no node");
    }
  }

private:
  struct Pick {
    NodeId node = 0;
    std::uint32_t gpu = 0; // for a share
  };

  // One worker of shape s, as Kubernetes' scheduling cycle places a pod in FGD's simulator (Weng
  // et al., ATC'23, section 6.1): filter the nodes where it fits, score each with the policy's
  // plugin, take the highest score (selectHost), then the GPU of a share. nullopt: no node fits.
  std::optional<Pick> pick(const PodShape& s) {
    const std::size_t shape = scorer_ == Scorer::kFgd ? shape_index(s) : 0;
    feasible_.clear();
    scores_.clear();
    gpus_.clear();
    for (NodeId n = 0; n < nodes_.size(); ++n) {
      if (!fits(nodes_[n], s)) continue;
      std::uint32_t gpu = 0;
      feasible_.push_back(n);
      scores_.push_back(score(n, shape, s, gpu));
      gpus_.push_back(gpu);
    }
    if (feasible_.empty()) return std::nullopt;
    if (scorer_ == Scorer::kBestFit) normalize_scores(scores_);
    const std::size_t chosen = select_host();
    Pick p{feasible_[chosen], gpus_[chosen]};
    if (s.is_share() && scorer_ != Scorer::kFgd) p.gpu = share_gpu(nodes_[p.node], s);
    return p;
  }

  // The score plugin's score of node n, which fits s (scorers.h); FGD's also names the GPU.
  std::int64_t score(NodeId n, std::size_t shape, const PodShape& s, std::uint32_t& gpu) {
    const NodeShares& node = nodes_[n];
    switch (scorer_) {
    case Scorer::kRandom:
      return 0;
    case Scorer::kDotProduct:
      return dot_product_score(node, s);
    case Scorer::kGpuClustering:
      return gpu_clustering_score(node, s);
    case Scorer::kGpuPacking:
      return gpu_packing_score(node, s);
    case Scorer::kBestFit:
      return best_fit_score(node, s);
    case Scorer::kFgd: {
      const FgdChoice c = fgd_cached(n, shape, s);
      gpu = c.gpu;
      return c.score;
    }
    }
    return 0;
  }

  // Kubernetes' selectHost over feasible_: the highest score. Among equals, the node first in
  // rank_, as in FGD's simulator: its Kubernetes fork (mental2008/kubernetes v1.20.5-minor,
  // core/generic_scheduler.go, selectHost) takes the smallest node name "for reproducibility",
  // and the simulator prefixes every node's name with its place in a permutation drawn once per
  // run (pkg/simulator/simulator.go, syncClusterResourceList: rand.Perm, "%04d-"). With
  // random_ties (upstream Kubernetes; the Random scorer, whose scores are all equal), drawn
  // uniformly by reservoir sampling at each decision.
  std::size_t select_host() {
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
    return chosen;
  }

  // The GPU of a share on the node picked, for the scorers that score nodes only: Random fit
  // draws one uniformly among those that can take it, the others take the best fit.
  std::uint32_t share_gpu(const NodeShares& node, const PodShape& s) {
    if (scorer_ != Scorer::kRandom) return *best_fit_gpu(node, s);
    std::uint32_t gpu = 0;
    std::uint64_t seen = 0;
    for (std::uint32_t g = 0; g < node.gpus; ++g)
      if (node.usable(g, s) >= s.gpu_milli && rng_.below(++seen) == 0) gpu = g;
    return gpu;
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
  // worker took (-1 if none). The nodes taken in the copy are read again from the cluster after.
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
      const NodeShares& node = nodes_[p->node];
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
      nodes_.take(p->node, s, gpus);
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
      nodes_.placed(j, touched_.front());
    }
    for (NodeId n : touched_)
      nodes_.reread(control, n);
    return ok;
  }

  // The first decision: the order that breaks ties, a uniform permutation of the nodes drawn once
  // (Fisher-Yates), and for FGD's oracle rule, the typical pods of the whole pod list, known
  // before the first arrival.
  void first_decision(const View& view) {
    rank_.resize(view.cluster().nodes.size());
    std::iota(rank_.begin(), rank_.end(), 0U);
    if (!random_ties_) shuffle(std::span(rank_), order_rng_);
    if (scorer_ == Scorer::kFgd && oracle_) {
      const SimState& all = view.raw();
      std::vector<PodShape> shapes(all.jobs.size());
      for (JobId j = 0; j < shapes.size(); ++j)
        shapes[j] = shape_of(all, j);
      mix_ = typical_shapes(shapes, coverage_);
    }
  }

  // FGD's score of node n for shape s, and the node's expected fragmentation under mix_, kept
  // until the node or the mix changes (NodeMemo).
  FgdChoice fgd_cached(NodeId n, std::size_t shape, const PodShape& s) {
    return fgd_memo_.get(shape, n, nodes_, mix_epoch_, [&] {
      const double before = frag_memo_.get(0, n, nodes_, mix_epoch_,
                                           [&] { return expected_frag_milli(nodes_[n], mix_); });
      return fgd_score(nodes_[n], s, mix_, before);
    });
  }

  std::size_t shape_index(const PodShape& s) {
    for (std::size_t i = 0; i < cached_shapes_.size(); ++i)
      if (cached_shapes_[i] == s) return i;
    cached_shapes_.push_back(s);
    return cached_shapes_.size() - 1;
  }

  Scorer scorer_;
  bool retry_;
  bool random_ties_;
  bool oracle_;
  double coverage_;
  Rng rng_;
  Rng order_rng_;
  std::vector<std::uint32_t> rank_; // node n's place in the order that breaks ties
  NodeSharesCopy nodes_;
  ShapeMix mix_;
  std::vector<PodShape> seen_;
  std::size_t next_mix_ = 1;
  std::vector<bool> tried_;
  // fgd_cached's: the shapes seen (a memo key each), the mix's epoch, the memos.
  std::vector<PodShape> cached_shapes_;
  std::uint64_t mix_epoch_ = 0;
  NodeMemo<FgdChoice> fgd_memo_;
  NodeMemo<double> frag_memo_;
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
