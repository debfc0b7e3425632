// Every bundled policy on 200 small random clusters, traces and parameter draws each (seeded),
// with the invariant checker attached: an action the runtime refuses (ActionError), a broken
// invariant, a job left unfinished (every drawn job fits the empty cluster, so only a policy that
// binds a gang's workers one at a time may deadlock) or a non-finite number in the summary fails
// the test. Inputs the configuration readers reject (a drawn parameter out of its range, a job no
// node can hold) are skipped and counted, and more are drawn, so that 200 cases really run.
// DLSIM_POLICY_FUZZ_ONLY=NAME runs one policy's cases alone.
#include "policies/registry.h"
#include "sim/engine/error.h"
#include "sim/engine/rng.h"
#include "sim/report/metrics.h"
#include "sim/report/summary.h"
#include "tests/support/harness.h"
#include "tests/support/invariants.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// Cases that run per policy; draws the readers reject do not count, up to kMaxDraws draws.
constexpr int kCasesPerPolicy = 200;
constexpr int kMaxDraws = 4 * kCasesPerPolicy;

struct Case {
  std::string cluster;
  std::string trace;
  YAML::Node params;
  RuntimeConfig config;
  std::string placement;
};

template <class T, std::size_t N>
const T& pick(Rng& rng, const std::array<T, N>& items) {
  return items[rng.below(N)];
}

// A value for one declared parameter: its default half of the time, else a draw of its type
// around the values a user would give. Structured and file parameters keep their defaults.
YAML::Node draw_param(Rng& rng, const ParamSpec& spec) {
  YAML::Node value = YAML::Load(spec.default_value);
  if (rng.uniform01() < 0.5) return value;
  switch (spec.type) {
  case ParamType::kSeconds:
    return YAML::Node(pick(rng, std::array<double, 7>{0, 1, 10, 30, 60, 300, 3600}));
  case ParamType::kFlag:
    return YAML::Node(rng.below(2) == 1);
  case ParamType::kNumber: {
    double base = 1;
    try {
      base = value.as<double>();
    } catch (const YAML::Exception&) {
    }
    // Scaled, or a small count: both sides of a threshold.
    if (rng.below(2) == 0)
      return YAML::Node(base * pick(rng, std::array<double, 5>{0, 0.5, 1, 2, 4}));
    return YAML::Node(static_cast<double>(rng.below(9)));
  }
  default:
    return value;
  }
}

Case draw_case(const PolicyEntry& entry, std::uint64_t seed) {
  Rng rng = Rng::stream(seed, "policy-fuzz." + entry.name);
  Case c;
  // 1 to 3 node groups of 1 to 3 nodes, each of one device type with 1, 2, 4 or 8 devices.
  const std::array<const char*, 5> types = {"V100", "P100", "T4", "K80", "A100"};
  std::vector<std::string> present;
  unsigned max_per_node = 0;
  c.cluster = "nodes:\n";
  const std::uint64_t groups = 1 + rng.below(3);
  for (std::uint64_t g = 0; g < groups; ++g) {
    const char* type = pick(rng, types);
    const unsigned per_node = pick(rng, std::array<unsigned, 4>{1, 2, 4, 8});
    max_per_node = std::max(max_per_node, per_node);
    present.emplace_back(type);
    c.cluster += fmt::format("  - {{count: {}, devices: {{{}: {}}}, nvlink: {}}}\n",
                             1 + rng.below(3), type, per_node, rng.below(2) == 1);
  }
  // 2 to 12 jobs, arriving in bursts and gaps; a third elastic, some pinned to a type, some with
  // a model of the zoo (for the policies that profile or scale by model).
  const std::array<const char*, 5> models = {"resnet50", "vgg16", "bert_base", "lstm", "ncf"};
  c.trace = "id,submit_s,workers,gpus_per_worker,duration_s,model,min_workers,max_workers,"
            "device_type,user,priority\n";
  const std::uint64_t jobs = 2 + rng.below(11);
  double t = 0;
  for (std::uint64_t j = 0; j < jobs; ++j) {
    if (rng.uniform01() < 0.6) t += std::round(rng.exponential(1.0 / 120));
    unsigned gpus = pick(rng, std::array<unsigned, 4>{1, 1, 2, 4});
    gpus = std::min(gpus, max_per_node);
    const unsigned workers = 1 + static_cast<unsigned>(rng.below(3));
    const double duration = std::round(10 + rng.exponential(1.0 / 600));
    std::string model = rng.uniform01() < 0.6 ? pick(rng, models) : "";
    std::string min_w, max_w;
    if (rng.uniform01() < 0.35) {
      min_w = "1";
      max_w = std::to_string(workers * 2);
    }
    std::string type = rng.uniform01() < 0.2 ? present[rng.below(present.size())] : "";
    c.trace += fmt::format("j{},{},{},{},{},{},{},{},{},u{},{}\n", j, t, workers, gpus, duration,
                           model, min_w, max_w, type, rng.below(3), rng.below(3));
  }
  c.params = YAML::Node(YAML::NodeType::Map);
  for (const ParamSpec& spec : entry.params)
    c.params[spec.key] = draw_param(rng, spec);
  // aiturbo's predictability classifier is a file that `dlsim run` reads (tested on its own in
  // aiturbo_test.cpp); "" leaves it the stability rule alone.
  if (entry.name == "aiturbo") c.params["classifier"] = "";
  c.config.scaling = rng.below(2) == 0 ? "linear" : "analytic";
  c.config.resize = pick(rng, std::array<const char*, 3>{"flat", "checkpoint", "live"});
  c.config.costs.suspend_s = pick(rng, std::array<double, 3>{0, 5, 30});
  c.config.costs.resume_s = pick(rng, std::array<double, 3>{0, 5, 30});
  c.placement = pick(rng, std::array<const char*, 2>{"consolidate", "spread"});
  return c;
}

bool finite_summary(const Summary& s) {
  for (double v :
       {s.makespan_s, s.jct_mean_s, s.jct_median_s, s.jct_p95_s, s.jct_p99_s, s.queue_mean_s,
        s.queue_median_s, s.queue_p95_s, s.gpu_util_alloc, s.gpu_util_effective}) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

} // namespace

TEST_CASE("policy fuzz: no refused action, no broken invariant, no non-finite number",
          "[policy][fuzz]") {
  for (const PolicyEntry& entry : policy_registry()) {
    // Those that need a file or a program the test does not give them: a search-sessions file,
    // a trained predictor, a scheduler command (each has its own tests).
    if (entry.name == "automl" || entry.name == "util-proactive" || entry.name == "external")
      continue;
    if (const char* only = std::getenv("DLSIM_POLICY_FUZZ_ONLY"); only && entry.name != only)
      continue;
    int ran = 0, rejected = 0;
    std::string first_rejection;
    for (int k = 0; k < kMaxDraws && ran < kCasesPerPolicy; ++k) {
      const Case c = draw_case(entry, static_cast<std::uint64_t>(k));
      INFO(entry.name << " case " << k << "\nparams: " << YAML::Dump(c.params) << "\ncluster:\n"
                      << c.cluster << "trace:\n"
                      << c.trace << "scaling " << c.config.scaling << ", resize " << c.config.resize
                      << ", placement " << c.placement);
      std::unique_ptr<Policy> policy;
      Cluster cluster;
      Workload workload;
      PolicySetup setup{Placement::kConsolidate, PolicyParams(YAML::Node(), entry.name)};
      try {
        cluster = cluster_from_yaml(c.cluster);
        workload = workload_from_csv(cluster, c.trace);
        setup = PolicySetup{parse_placement(c.placement), resolve_params(entry, c.params)};
        setup.seed = static_cast<std::uint64_t>(k);
        policy = entry.make(setup);
      } catch (const InputError& e) {
        // A drawn parameter out of its range, a job no node holds: the readers' business.
        if (first_rejection.empty()) first_rejection = e.what();
        ++rejected;
        continue;
      }
      // The policy checks the runtime configuration when the simulation is made (a Gavel round
      // no longer than a move between rounds is refused): the same kind of rejection.
      std::optional<Simulation> made;
      try {
        made.emplace(cluster, workload, c.config, *policy,
                     PolicyInfo{entry.name, uses_oracle(entry, setup.params)});
      } catch (const InputError& e) {
        if (first_rejection.empty()) first_rejection = e.what();
        ++rejected;
        continue;
      }
      Simulation& sim = *made;
      InvariantChecker checker;
      UtilizationMeter meter;
      sim.add_observer(&checker);
      sim.add_observer(&meter);
      RunResult result;
      try {
        result = sim.run();
      } catch (const ActionError& e) {
        FAIL("refused action: " << e.what());
      }
      checker.check_final(sim.state());
      // Every job fits the empty cluster (the readers reject one that does not), so every policy
      // but one that binds a gang's workers one at a time, as Kubernetes' default scheduler
      // does, finishes them all; a job left waiting for ever is a policy defect.
      if (entry.name != "k8s-default") CHECK(result.unfinished == 0);
      Summary s = summarize(sim.state(), result, meter, entry.name, 0);
      CHECK(finite_summary(s));
      ++ran;
    }
    INFO(entry.name << ": " << ran << " ran, " << rejected
                    << " rejected as input; the first: " << first_rejection);
    // Enough draws are valid input: the test exercises the policy, not the readers.
    CHECK(ran == kCasesPerPolicy);
  }
}
