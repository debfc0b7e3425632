// The FGD paper's node model, fragmentation measure, scorers and workload inflation
// (sim/runtime/node_shares.h, policies/scoring/, workloads/trace_inflate.h;
// docs/fragmentation.md). Every expected number is worked out by hand in the comment above it.
#include "policies/registry.h"
#include "policies/scoring/scorers.h"
#include "sim/engine/error.h"
#include "sim/runtime/node_shares.h"
#include "sim/runtime/observer.h"
#include "sim/runtime/simulation.h"
#include "support/harness.h"
#include "workloads/trace_inflate.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// A node of `left.size()` GPUs of type 0, open, with these milli-GPUs left.
NodeShares node_of(std::int32_t cpu_milli, std::initializer_list<std::int16_t> left,
                   std::uint32_t tags = 0) {
  NodeShares n;
  n.cpu_milli_left = cpu_milli;
  n.mem_left_gb = 1000;
  for (std::int16_t l : left) {
    n.left[n.gpus] = l;
    n.open[n.gpus] = true;
    n.type[n.gpus] = 0;
    ++n.gpus;
  }
  n.tags = tags;
  return n;
}

PodShape share(std::int32_t cpu_milli, std::int32_t milli) {
  return {cpu_milli, milli, 1, 1, 0};
}
PodShape whole(std::int32_t cpu_milli, std::uint32_t gpus) {
  return {cpu_milli, kMilli, gpus, 1, 0};
}

} // namespace

TEST_CASE("FGD's fragmentation of a node to one shape", "[fgd][frag]") {
  NodeShares n = node_of(10000, {1000, 500, 200, 0});
  // 1,700 milli-GPUs free in all (1000 + 500 + 200 + 0).
  CHECK(n.gpu_milli_left() == 1700);
  // A 300-milli share with 2 cores fits (GPUs 0 and 1 have 300 or more): the fragment is what it
  // cannot use, the 200 of GPU 2 (GPU 3 has nothing).
  CHECK(frag_milli(n, share(2000, 300)) == 200);
  // Two whole GPUs do not fit (one GPU is fully free): all 1,700 is fragment to them.
  CHECK(frag_milli(n, whole(2000, 2)) == 1700);
  // One whole GPU fits on GPU 0: 500 + 200 cannot take it.
  CHECK(frag_milli(n, whole(2000, 1)) == 700);
  // Too few cores (20 asked, 10 left): all of it.
  CHECK(frag_milli(n, share(20000, 300)) == 1700);
  // A pod of no GPU: all of it, as in FGD.
  CHECK(frag_milli(n, PodShape{1000, 0, 0, 0, 0}) == 1700);
  // A pod that accepts only type 1: no access, all of it.
  CHECK(frag_milli(n, PodShape{1000, 300, 1, 2, 0}) == 1700);
  // A closed GPU (a whole-GPU holder, or 8 sharers) is fragment even when it has room.
  n.open[1] = false;
  CHECK(frag_milli(n, share(2000, 300)) == 700);
  // Expected under a mix of 0.75 x (300-milli share) and 0.25 x (no GPU): 0.75 x 700 + 0.25 x
  // 1,700 = 525 + 425 = 950.
  ShapeMix mix{{share(2000, 300), PodShape{1000, 0, 0, 0, 0}}, {0.75, 0.25}};
  CHECK(expected_frag_milli(n, mix) == Approx(950));
}

TEST_CASE("typical shapes: most frequent first until they cover the share, renormalized",
          "[fgd][frag]") {
  const PodShape a = share(4000, 500);
  const PodShape b = whole(8000, 1);
  const PodShape c = PodShape{2000, 0, 0, 0, 0};
  std::vector<PodShape> jobs;
  for (int i = 0; i < 6; ++i)
    jobs.push_back(a);
  for (int i = 0; i < 3; ++i)
    jobs.push_back(b);
  jobs.push_back(c);
  // 95% of 10 is 9.5: a (6) and b (9) are below it, c brings it to 10: all three, 0.6, 0.3, 0.1.
  ShapeMix all = typical_shapes(jobs, 0.95);
  REQUIRE(all.shapes.size() == 3);
  CHECK(all.shapes[0] == a);
  CHECK(all.shapes[1] == b);
  CHECK(all.p[0] == Approx(0.6));
  CHECK(all.p[2] == Approx(0.1));
  // 80% is 8: a (6) is below, b makes 9: a and b, renormalized 6/9 and 3/9.
  ShapeMix most = typical_shapes(jobs, 0.8);
  REQUIRE(most.shapes.size() == 2);
  CHECK(most.p[0] == Approx(6.0 / 9));
  CHECK(most.p[1] == Approx(3.0 / 9));
}

TEST_CASE("the FGD paper's baseline scores, as FGD's simulator computes them", "[fgd][score]") {
  // DotProd: node 64 cores and 4 GPUs free, pod 8 cores and half a GPU:
  // (64000/128000)(8000/128000) + (4000/8000)(500/8000) = 0.03125 + 0.03125 = 0.0625;
  // 100 x (1 - 0.0625 / 2) = 96.875 -> 96.
  NodeShares n = node_of(64000, {1000, 1000, 1000, 1000});
  CHECK(dot_product_score(n, share(8000, 500)) == 96);
  // BestFit: 0.5 x 56000/128000 + 0.5 x 3500/8000 = 0.21875 + 0.21875 = 0.4375; 100 x 0.5625
  // = 56.25 -> 56.
  CHECK(best_fit_score(n, share(8000, 500)) == 56);
  // Normalized over nodes scoring 56, 60, 40: (56 - 40) x 100 / 20 = 80, 100, 0.
  std::vector<std::int64_t> scores{56, 60, 40};
  normalize_scores(scores);
  CHECK(scores == std::vector<std::int64_t>{80, 100, 0});
  std::vector<std::int64_t> equal{7, 7};
  normalize_scores(equal);
  CHECK(equal == std::vector<std::int64_t>{0, 0});
  // GpuPacking on a free node of 4 GPUs: 100/3 - 4 = 29 (at least 4).
  CHECK(gpu_packing_score(n, share(8000, 500)) == 29);
  // On GPUs left {1000, 600, 1000, 1000}, a 500 share fits GPU 1, partly used: its 60% free
  // gives 100 - 60/10 = 94. One whole GPU needs a free one on a used node: 50 - 1 = 49.
  NodeShares used = node_of(64000, {1000, 600, 1000, 1000});
  CHECK(gpu_packing_score(used, share(8000, 500)) == 94);
  CHECK(gpu_packing_score(used, whole(8000, 1)) == 49);
  // Best fit GPU for the share: the least left that holds 500, GPU 1.
  CHECK(best_fit_gpu(used, share(8000, 500)) == 1U);
  // GpuClustering: a node holding only shares, 3,000 milli free: 25 x 5000 / 8000 = 15 (integer),
  // + 75 for a share pod; + 0 for a whole-GPU pod (the node holds another kind); an empty node
  // of 4,000 free: 25 x 4000 / 8000 = 12, + 25.
  NodeShares shares_only = node_of(64000, {1000, 1000, 500, 500}, 1);
  CHECK(gpu_clustering_score(shares_only, share(8000, 500)) == 90);
  CHECK(gpu_clustering_score(shares_only, whole(8000, 1)) == 15);
  CHECK(gpu_clustering_score(n, whole(8000, 1)) == 37);
  CHECK(gpu_clustering_score(n, PodShape{1000, 0, 0, 0, 0}) == 0);
}

TEST_CASE("FGD puts a share where the expected fragmentation grows least, not by best fit",
          "[fgd][score]") {
  // Only 600-milli shares are expected. GPUs left {1000, 700}: before, both hold 600, fragment 0.
  // A 300 share on GPU 0 leaves {700, 700}: fragment 0, score 100 x sigmoid(0) = 50. On GPU 1 it
  // leaves {1000, 400}: 400 is fragment, 100 x sigmoid(-0.4) = 100 x 0.40131 = 40.
  // FGD takes GPU 0; best fit would take GPU 1 (700 < 1000).
  NodeShares n = node_of(8000, {1000, 700});
  ShapeMix mix{{share(1000, 600)}, {1.0}};
  const double before = expected_frag_milli(n, mix);
  CHECK(before == 0);
  FgdChoice c = fgd_score(n, share(1000, 300), mix, before);
  CHECK(c.gpu == 0);
  CHECK(c.score == 50);
  CHECK(best_fit_gpu(n, share(1000, 300)) == 1U);
  // A whole GPU takes GPU 0, leaving {0, 700}: 700 still holds a 600 share, fragment 0: 50.
  CHECK(fgd_score(n, whole(1000, 1), mix, before).score == 50);
  // With 800-milli shares expected, {1000, 700} has 700 of fragment; the 300 share on GPU 0
  // leaves {700, 700}: 800 fits nowhere, all 1,400 is fragment: 100 x sigmoid(-0.7) = 33.2 -> 33;
  // on GPU 1, {1000, 400}: 400, 100 x sigmoid(0.3) = 57.4 -> 57. FGD takes GPU 1.
  ShapeMix big{{share(1000, 800)}, {1.0}};
  FgdChoice b = fgd_score(n, share(1000, 300), big, expected_frag_milli(n, big));
  CHECK(b.gpu == 1);
  CHECK(b.score == 57);
}

namespace {

// The devices each job started or was packed on, by job, from the run's events (the final state
// has released them).
class StartLog final : public RunObserver {
public:
  explicit StartLog(std::size_t jobs) : devices(jobs) {}
  [[nodiscard]] bool wants_job_events() const override { return true; }
  void on_job_event(const JobEvent& e, const View& /*view*/) override {
    if (e.action == JobAction::kStart || e.action == JobAction::kPack)
      devices[e.job].assign(e.devices.begin(), e.devices.end());
  }
  std::vector<std::vector<DeviceId>> devices;
};

std::vector<std::vector<DeviceId>> placements(const std::string& policy, const Cluster& c,
                                              const Workload& w, const YAML::Node& params) {
  const PolicyEntry& entry = find_policy(policy);
  PolicySetup setup{Placement::kConsolidate, resolve_params(entry, params)};
  auto p = entry.make(setup);
  Simulation sim(c, w, RuntimeConfig{}, *p, PolicyInfo{policy, false});
  StartLog log(w.jobs.size());
  sim.add_observer(&log);
  sim.run();
  return log.devices;
}

constexpr const char* kFourGpus = "nodes:\n  - {count: 1, devices: {V100: 4}, cpu_cores: 64, "
                                  "memory_gb: 256}\n";

} // namespace

TEST_CASE("trace.inflate draws with replacement until the next draw would pass tune x GPUs",
          "[fgd][inflate]") {
  // Three 1-GPU jobs (3,000 milli) on 4 GPUs, tune 1.5: target 6,000. Copies are added while the
  // total plus the next one's 1,000 stays within it: 4,000, 5,000, 6,000; at 6,000 the next
  // would make 7,000 and stops. 6 jobs, arriving 0..5 s, running 6..1 s: all end at 6.
  Trace t = trace_from_csv("id,submit_s,workers,duration_s\n"
                           "a,0,1,100\nb,50,1,100\nc,70,1,100\n");
  InflateReport r = inflate_trace(t, 1.5, 4, 7);
  CHECK(r.added == 3);
  CHECK(r.milli_after == 6000);
  REQUIRE(t.jobs.size() == 6);
  std::set<std::string> names;
  for (std::size_t i = 0; i < t.jobs.size(); ++i) {
    CHECK(t.jobs[i].submit_s == static_cast<double>(i));
    CHECK(t.jobs[i].submit_s + t.jobs[i].duration_s == 6);
    names.insert(std::string(t.name(t.jobs[i])));
  }
  CHECK(names.size() == 6); // copies are named NAME-tuned-K
  CHECK(t.in_submit_order);
}

TEST_CASE("trace.inflate compares the share per GPU, as FGD does, so a multi-GPU job may pass",
          "[fgd][inflate]") {
  // One 2-GPU job (2,000) on 4 GPUs. Tune 1.2 (4,800): 2,000 + 1,000 <= 4,800, added (4,000);
  // 4,000 + 1,000 > 4,800 stops: 2 jobs. Tune 1.3 (5,200): 4,000 + 1,000 <= 5,200, added: 6,000,
  // past the target; then 6,000 + 1,000 > 5,200 stops: 3 jobs.
  const char* csv = "id,submit_s,workers,gpus_per_worker,duration_s\nbig,0,1,2,100\n";
  Trace a = trace_from_csv(csv);
  CHECK(inflate_trace(a, 1.2, 4, 1).milli_after == 4000);
  Trace b = trace_from_csv(csv);
  InflateReport rb = inflate_trace(b, 1.3, 4, 1);
  CHECK(rb.milli_after == 6000);
  CHECK(b.jobs.size() == 3);
  // Above the target, jobs are removed until within: 3 x 1,000 at tune 0.5 of 4 GPUs (2,000):
  // one removed.
  Trace c = trace_from_csv("id,submit_s,workers,duration_s\na,0,1,1\nb,0,1,1\nc,0,1,1\n");
  InflateReport rc = inflate_trace(c, 0.5, 4, 1);
  CHECK(rc.removed == 1);
  CHECK(c.jobs.size() == 2);
  // A half-GPU share counts 500.
  Trace d = trace_from_csv("id,submit_s,workers,duration_s,gpu_share_min\nh,0,1,1,0.5\n");
  CHECK(gpu_request_milli(d.jobs[0]) == 500);
}

TEST_CASE("trace.inflate refuses a tune that is not above 0", "[fgd][inflate]") {
  Trace t = trace_from_csv("id,submit_s,workers,duration_s\na,0,1,1\n");
  CHECK_THROWS_WITH(inflate_trace(t, 0, 4, 1), Catch::Contains("trace.inflate"));
  CHECK_THROWS_WITH(inflate_trace(t, -1, 4, 1), Catch::Contains("trace.inflate"));
  CHECK_THROWS_WITH(inflate_trace(t, std::nan(""), 4, 1), Catch::Contains("trace.inflate"));
}

TEST_CASE("the scorers place shares on one node's GPUs and cancel what fits nowhere",
          "[fgd][policy]") {
  Cluster c = cluster_from_yaml(kFourGpus);
  // Six 0.4 shares, then a 4-GPU job: each share goes where its policy says; the 4-GPU job finds
  // no 4 free GPUs once any share is placed, and is cancelled (FGD's failed pod).
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,gpu_share_min,gpu_share_max\n"
                                    "s1,0,1,100,0.4,0.4\ns2,1,1,100,0.4,0.4\n"
                                    "s3,2,1,100,0.4,0.4\ns4,3,1,100,0.4,0.4\n"
                                    "s5,4,1,100,0.4,0.4\ns6,5,1,100,0.4,0.4\n"
                                    "big,6,1,100,1,1\n");
  w.jobs[job_named(w, "big")].request.devices_per_worker = 4;
  for (const char* policy : {"score-random", "score-dot-product", "score-gpu-clustering",
                             "score-gpu-packing", "score-best-fit", "fgd"}) {
    INFO(policy);
    RunOutput out = run_policy(policy, c, w);
    std::uint32_t cancelled = 0;
    for (const JobState& s : out.state.jobs)
      cancelled += s.status == JobStatus::kCancelled ? 1U : 0U;
    CHECK(cancelled == 1);
    CHECK(out.state.jobs[job_named(w, "big")].status == JobStatus::kCancelled);
    // The six shares fit at once (two 0.4 shares per GPU, 8 places on 4 GPUs): each starts at
    // its arrival, 0 to 5 s.
    for (JobId j = 0; j < 6; ++j)
      CHECK(out.state.jobs[j].first_start == w.jobs[j].request.submit);
  }
}

TEST_CASE("GpuPacking sends the next shares to the node of the first, then its free GPU",
          "[fgd][policy]") {
  // Three identical free nodes of 2 GPUs, three 0.4 shares:
  // s1: every node is free, max(33 - 2, 2) = 31 each: a tie, some node X, GPU 0 of X by best
  //     fit (both have 1000 left, the lower index).
  // s2: X has GPU 0 partly used with 600 left >= 400: 100 - 60 / 10 = 94 > 31: X, GPU 0 by best
  //     fit (600 < 1000), which then has 200 left.
  // s3: X has only GPU 1 (fully free) for it: 50 - 1 = 49 > 31: X, GPU 1.
  // So s1 and s2 hold device 2X, s3 device 2X + 1.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 3, devices: {V100: 2}, cpu_cores: 64, "
                                "memory_gb: 256}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,gpu_share_min,gpu_share_max\n"
                                    "s1,0,1,100,0.4,0.4\ns2,1,1,100,0.4,0.4\n"
                                    "s3,2,1,100,0.4,0.4\n");
  const auto placed = placements("score-gpu-packing", c, w, YAML::Node());
  REQUIRE(placed[0].size() == 1);
  const DeviceId x0 = placed[0][0];
  CHECK(x0 % 2 == 0);
  CHECK(placed == std::vector<std::vector<DeviceId>>{{x0}, {x0}, {x0 + 1}});
}

namespace {

// The most cores in use on one node, and the nodes in use, over a run's decisions.
class CoresInUse final : public RunObserver {
public:
  void on_decided(const View& view) override {
    std::uint32_t used = 0;
    double most = 0;
    for (NodeId n = 0; n < view.cluster().nodes.size(); ++n) {
      const double in_use = view.cluster().nodes[n].cpu_cores - view.node_cpu_free(n);
      used += in_use > 0 ? 1U : 0U;
      most = std::max(most, in_use);
    }
    most_on_one = std::max(most_on_one, most);
    nodes_used = std::max(nodes_used, used);
  }
  double most_on_one = 0;
  std::uint32_t nodes_used = 0;
};

CoresInUse cores_in_use(const std::string& policy, const Cluster& c, const Workload& w,
                        const YAML::Node& params) {
  const PolicyEntry& entry = find_policy(policy);
  PolicySetup setup{Placement::kConsolidate, resolve_params(entry, params)};
  auto p = entry.make(setup);
  Simulation sim(c, w, RuntimeConfig{}, *p, PolicyInfo{policy, false});
  CoresInUse seen;
  sim.add_observer(&seen);
  sim.run();
  return seen;
}

} // namespace

TEST_CASE("equal scores go to the first node of an order drawn once per run, as in FGD's "
          "simulator, or to a draw at each decision with random_ties",
          "[fgd][policy]") {
  // Eight identical nodes of 8 cores and eight pods of no GPU and 1 core each, arriving 1 s apart
  // and all running at once (100 s). GpuPacking scores a pod of no GPU 0 on every node, so each
  // decision is a tie among every node with a free core. FGD's simulator takes the smallest node
  // name, its names prefixed by a permutation drawn once per run: the same node every time while
  // it has room. Its 8 cores hold all eight pods: one node with 8 cores in use, no other used.
  // Drawn at each decision instead, the eight pods are all on one node with probability 8^-7
  // (about 5e-7).
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 8, devices: {V100: 1}, cpu_cores: 8, "
                                "memory_gb: 64}\n");
  std::string csv = "id,submit_s,workers,duration_s,cpus_per_worker,mem_gb_per_worker\n";
  for (int k = 0; k < 8; ++k)
    csv += "p" + std::to_string(k) + "," + std::to_string(k) + ",1,100,1,1\n";
  Workload w = workload_from_csv(c, csv);
  for (JobSpec& j : w.jobs)
    j.request.devices_per_worker = 0; // host tasks, as openb's CPU-only pods
  const CoresInUse first = cores_in_use("score-gpu-packing", c, w, YAML::Node());
  CHECK(first.most_on_one == 8);
  CHECK(first.nodes_used == 1);
  const CoresInUse drawn =
      cores_in_use("score-gpu-packing", c, w, YAML::Load("{random_ties: true}"));
  CHECK(drawn.nodes_used > 1);
  CHECK(drawn.most_on_one < 8);
}
