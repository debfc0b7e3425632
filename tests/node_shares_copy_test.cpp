// NodeSharesCopy (every node's free shares, kept in step with the runtime's change logs) against
// read_node of every node at every decision of random runs of GPU shares, whole GPUs and host
// tasks, and its tentative changes against after() and a read again.
#include "policies/node_shares_copy.h"
#include "policies/registry.h"
#include "sim/runtime/observer.h"
#include "sim/runtime/simulation.h"
#include "support/harness.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

bool same(const NodeShares& a, const NodeShares& b) {
  if (a.node != b.node || a.cpu_milli_left != b.cpu_milli_left || a.mem_left_gb != b.mem_left_gb ||
      a.gpus != b.gpus || a.tags != b.tags)
    return false;
  for (std::uint32_t g = 0; g < a.gpus; ++g) {
    if (a.device[g] != b.device[g] || a.type[g] != b.type[g] || a.left[g] != b.left[g] ||
        a.open[g] != b.open[g])
      return false;
  }
  return true;
}

// At every decision: the copy, refreshed, equals a fresh read of every node; a node taken and
// read again is the runtime's again, with a new version each time.
class CopyChecker final : public RunObserver {
public:
  void on_decided(const View& view) override {
    copy.refresh(view);
    for (NodeId n = 0; n < copy.size(); ++n) {
      const bool ok = same(copy[n], read_node(view, n));
      mismatches += ok ? 0 : 1;
    }
    const auto n = static_cast<NodeId>(rng() % copy.size());
    const PodShape pod{1000, kMilli, 1, ~std::uint64_t{0}, 0};
    const std::uint64_t before = copy.version(n);
    const std::vector<std::uint32_t> gpus = exclusive_gpus(copy[n], pod);
    if (!gpus.empty()) {
      NodeShares want = after(copy[n], pod, gpus);
      want.open[gpus.front()] = false;
      copy.take(n, pod, gpus);
      mismatches += same(copy[n], want) ? 0 : 1;
      mismatches += copy.version(n) != before ? 0 : 1;
    }
    copy.reread(view, n);
    mismatches += same(copy[n], read_node(view, n)) ? 0 : 1;
    ++decisions;
  }
  NodeSharesCopy copy;
  std::mt19937 rng{3};
  int mismatches = 0;
  int decisions = 0;
};

} // namespace

TEST_CASE("NodeSharesCopy equals a fresh read of every node at every decision",
          "[node_shares_copy]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 6, devices: {V100: 4}, cpu_cores: 16, "
                                "memory_gb: 64}\n  - {count: 3, devices: {K80: 2}, cpu_cores: 8, "
                                "memory_gb: 32}\n");
  std::mt19937 rng(11);
  for (int trial = 0; trial < 6; ++trial) {
    // Shares of one GPU, whole GPUs and host tasks, arriving faster than they end.
    std::string csv = "id,submit_s,workers,duration_s,gpu_share_min,gpu_share_max,"
                      "cpus_per_worker,mem_gb_per_worker\n";
    std::vector<int> kind(120);
    for (int k = 0; k < 120; ++k) {
      kind[k] = static_cast<int>(rng() % 3);
      // A share between a least and a most: the share controller moves it as others come and
      // go, a change of the GPU's milli with no change of cores or memory (no node mark).
      const double least = kind[k] == 0 ? 0.1 * static_cast<double>(1 + rng() % 6) : 1.0;
      const double most = kind[k] == 0 ? least + 0.1 * static_cast<double>(rng() % 4) : 1.0;
      csv += "j" + std::to_string(k) + "," + std::to_string(k * 3) + "," +
             std::to_string(1 + rng() % 2) + "," + std::to_string(20 + rng() % 200) + "," +
             std::to_string(least) + "," + std::to_string(most) + "," +
             std::to_string(1 + rng() % 4) + ",2\n";
    }
    Workload w = workload_from_csv(c, csv);
    for (std::size_t k = 0; k < w.jobs.size(); ++k) {
      if (kind[k] == 1) w.jobs[k].request.devices_per_worker = 1 + rng() % 2;
      if (kind[k] == 2) w.jobs[k].request.devices_per_worker = 0;
    }
    for (const char* policy : {"fgd", "score-best-fit"}) {
      INFO(policy << " trial " << trial);
      const PolicyEntry& entry = find_policy(policy);
      PolicySetup setup{Placement::kConsolidate,
                        resolve_params(entry, YAML::Load("{retry: true}"))};
      auto p = entry.make(setup);
      Simulation sim(c, w, RuntimeConfig{}, *p, PolicyInfo{policy, false});
      CopyChecker checker;
      sim.add_observer(&checker);
      sim.run();
      CHECK(checker.decisions > 50);
      CHECK(checker.mismatches == 0);
    }
  }
}
