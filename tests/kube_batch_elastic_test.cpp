// kube-batch runs an elastic job at its requested size by default (the gang is its requested
// workers); `elastic_at_min: true` makes the gang its min_workers, so it may start smaller and,
// never grown by this policy, stays there (docs/policies.md#kube-batch-volcano).
#include "policies/registry.h"
#include "tests/support/harness.h"
#include "tests/support/invariants.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace {

struct Ended {
  double start = 0, end = 0;
  std::uint32_t workers = 0; // of its last allocation
};

// One node of 4 V100s. a: 2 rigid workers, 50 s, at 0. e: elastic, 4 workers requested (2 to
// 4), 100 s of work on 4, at 0 (after a). A duration-only job runs at a speed proportional to
// its workers: on 2 it needs 200 s.
Ended run_e(const std::string& params) {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 4}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,min_workers,max_workers,duration_s\n"
                                    "a,0,2,2,2,50\ne,0,4,2,4,100\n");
  const PolicyEntry& entry = find_policy("kube-batch");
  PolicySetup setup{Placement::kConsolidate, resolve_params(entry, YAML::Load(params))};
  auto policy = entry.make(setup);
  Simulation sim(c, w, RuntimeConfig{}, *policy, PolicyInfo{"kube-batch", false});
  InvariantChecker checker;
  sim.add_observer(&checker);
  RunResult r = sim.run();
  checker.check_final(sim.state());
  REQUIRE(r.unfinished == 0);
  const JobState& e = sim.state().jobs[job_named(w, "e")];
  return {to_seconds(e.first_start), to_seconds(e.end), e.workers};
}

} // namespace

TEST_CASE("kube-batch runs an elastic job at its requested size unless told to start it at its "
          "minimum",
          "[policy][kube]") {
  // Default: e's gang is its 4 workers. At 0 a takes 2 GPUs; 2 are left, e is not ready and waits.
  // At 50 a ends: e starts on all 4 and ends at 50 + 100 = 150.
  Ended requested = run_e("{}");
  CHECK(requested.start == 50);
  CHECK(requested.end == 150);
  CHECK(requested.workers == 4);
  // elastic_at_min: e's gang is its 2 minimum workers: it starts at 0 on the 2 GPUs a left and is
  // never grown: 100 s of work on 4 is 200 s on 2, so it ends at 200, later than at its size.
  Ended at_min = run_e("{elastic_at_min: true}");
  CHECK(at_min.start == 0);
  CHECK(at_min.end == 200);
  CHECK(at_min.workers == 2);
}
