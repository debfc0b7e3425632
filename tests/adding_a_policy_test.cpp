// docs/adding-a-policy.md's worked example: the code shown there is tests/toy_policy.cpp (checked
// here, so the page cannot drift from code that compiles), registered as the recipe says, by one
// line added to the list of policies/policy_list.h, and it schedules as worked out by hand.
#include "policies/policy_list.h"
#include "tests/support/docs_example.h"
#include "tests/support/harness.h"
#include "tests/toy_policy.h"

#include <catch2/catch.hpp>

#include <cstddef>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim {
// The registered list with the recipe's one line added.
#define TEST_POLICIES(X) DLSIM_POLICIES(X) X(smallest_first)
#define TEST_DECLARE_POLICY(name) PolicyEntry name##_policy();
TEST_POLICIES(TEST_DECLARE_POLICY)
#undef TEST_DECLARE_POLICY
} // namespace dlsim

namespace {

std::vector<PolicyEntry> policies_with_example() {
#define TEST_POLICY_ENTRY(name) name##_policy(),
  return {TEST_POLICIES(TEST_POLICY_ENTRY)};
#undef TEST_POLICY_ENTRY
}

double end_s(const RunOutput& out, const Workload& w, const std::string& name) {
  return to_seconds(out.state.jobs[job_named(w, name)].end);
}

} // namespace

TEST_CASE("docs/adding-a-policy.md shows tests/toy_policy.cpp as it is", "[policy][docs]") {
  std::string page = read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/docs/adding-a-policy.md");
  std::string code = read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/tests/toy_policy.cpp");
  CHECK(cpp_block_after(page, "") == code);
  // The registration the page shows is the line the test below adds to the list.
  CHECK(page.find("X(smallest_first)") != std::string::npos);
}

TEST_CASE("the example policy, registered by one line, is listed last and runs by its entry",
          "[policy][docs]") {
  const std::vector<PolicyEntry> with = policies_with_example();
  const std::vector<PolicyEntry>& registered = policy_registry();
  REQUIRE(with.size() == registered.size() + 1);
  for (std::size_t i = 0; i < registered.size(); ++i)
    CHECK(with[i].name == registered[i].name);
  CHECK(with.back().name == "smallest-first");
  // The listed entry schedules as the hand-worked table below says (B ends last, at 180).
  Cluster c = cluster_from_yaml(kDocsExampleCluster);
  Workload w = workload_from_csv(c, kDocsExampleJobs);
  RunOutput out = run_policy(with.back(), c, w, YAML::Node());
  CHECK(end_s(out, w, "C") == 30);
  CHECK(end_s(out, w, "B") == 180);
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
  // The declared range is checked before the factory runs.
  CHECK_THROWS_WITH(
      run_policy(smallest_first_policy(), c, w, YAML::Load("{max_running: -1}")),
      Catch::Contains(
          "policy.params.max_running: expected a whole number from 0 to 1000000, got -1"));
  CHECK_THROWS_WITH(run_policy(smallest_first_policy(), c, w, YAML::Load("{max_running: 1.5}")),
                    Catch::Contains("policy.params.max_running: expected a whole number"));
  CHECK_THROWS_WITH(run_policy(smallest_first_policy(), c, w, YAML::Load("{max_running: x}")),
                    Catch::Contains("policy.params.max_running: expected a number"));
}
