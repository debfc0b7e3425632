// docs/adding-a-policy.md's worked example: the code shown there is tests/toy_policy.cpp (checked
// here, so the page cannot drift from code that compiles), and it schedules as worked out by hand.
#include "tests/support/docs_example.h"
#include "tests/support/harness.h"
#include "tests/toy_policy.h"

#include <catch2/catch.hpp>

#include <string>

using namespace dlsim;
using namespace dlsim::test;

namespace {

double end_s(const RunOutput& out, const Workload& w, const std::string& name) {
  return to_seconds(out.state.jobs[job_named(w, name)].end);
}

} // namespace

TEST_CASE("docs/adding-a-policy.md shows tests/toy_policy.cpp as it is", "[policy][docs]") {
  std::string page = read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/docs/adding-a-policy.md");
  std::string code = read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/tests/toy_policy.cpp");
  CHECK(cpp_block_after(page, "") == code);
}

TEST_CASE("the toy policy smallest-first starts small jobs around big ones", "[policy][docs]") {
  Cluster c = cluster_from_yaml(kDocsExampleCluster);
  Workload w = workload_from_csv(c, kDocsExampleJobs);
  RunOutput out = run_policy(smallest_first_policy(), c, w, YAML::Node());
  // 0: A takes 3 GPUs (1 free), runs to 100. 10: B (4) does not fit. 20: waiting by size C (1),
  // D (2), B (4): C fits in the free GPU, 20-30; D and B do not. 30: 1 free, D still does not
  // fit. 100: A ends, 4 free: D starts (100-130), B does not fit in the 2 left. 130: B, 130-180.
  CHECK(end_s(out, w, "A") == 100);
  CHECK(end_s(out, w, "C") == 30);
  CHECK(end_s(out, w, "D") == 130);
  CHECK(end_s(out, w, "B") == 180);
}

TEST_CASE("the toy policy's max_running caps the jobs running at once", "[policy][docs]") {
  Cluster c = cluster_from_yaml(kDocsExampleCluster);
  Workload w = workload_from_csv(c, kDocsExampleJobs);
  RunOutput out = run_policy(smallest_first_policy(), c, w, YAML::Load("{max_running: 1}"));
  // One job at a time, smallest first once A is done: A 0-100, C 100-110, D 110-140,
  // B 140-190.
  CHECK(end_s(out, w, "A") == 100);
  CHECK(end_s(out, w, "C") == 110);
  CHECK(end_s(out, w, "D") == 140);
  CHECK(end_s(out, w, "B") == 190);
  CHECK_THROWS_WITH(run_policy(smallest_first_policy(), c, w, YAML::Load("{max_running: -1}")),
                    Catch::Contains("policy.params.max_running"));
  CHECK_THROWS_WITH(run_policy(smallest_first_policy(), c, w, YAML::Load("{max_running: x}")),
                    Catch::Contains("policy.params.max_running: expected a number"));
}
