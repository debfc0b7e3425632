// docs/architecture.md's worked summary metric: the code shown there is tests/toy_metric.cpp
// (checked here, so the page cannot drift from code that compiles), registered as the recipe
// says, by one line added to the list of sim/report/metrics/metric_list.h, and its keys land in
// summary.json after every registered metric's, with the values worked out by hand.
#include "sim/report/metrics/metric_list.h"
#include "sim/report/summary_metric.h"
#include "sim/report/writers.h"
#include "tests/support/docs_example.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim {
// The registered list with the recipe's one line added.
#define TEST_METRICS(X) DLSIM_SUMMARY_METRICS(X) X(peak_pending)
#define TEST_DECLARE_METRIC(name) MetricEntry name##_metric();
TEST_METRICS(TEST_DECLARE_METRIC)
#undef TEST_DECLARE_METRIC
} // namespace dlsim

namespace {

std::vector<MetricEntry> metrics_with_example() {
#define TEST_METRIC_ENTRY(name) name##_metric(),
  return {TEST_METRICS(TEST_METRIC_ENTRY)};
#undef TEST_METRIC_ENTRY
}

// summary.json of the jobs above under fifo, with the metrics of `entries`, as `dlsim run`
// makes it (run_experiment.cpp: summarize, then the metrics' keys, then write_summary_json).
nlohmann::ordered_json summary_under_fifo(const std::vector<MetricEntry>& entries) {
  Cluster cluster = cluster_from_yaml(kDocsExampleCluster);
  Workload workload = workload_from_csv(cluster, kDocsExampleJobs);
  const PolicyEntry& fifo = find_policy("fifo");
  auto policy = fifo.make(PolicySetup{parse_placement("consolidate"), resolve_params(fifo, {})});
  Simulation sim(cluster, workload, RuntimeConfig{}, *policy, PolicyInfo{"fifo", false});
  UtilizationMeter meter;
  MetricSet metrics(entries, MetricSetup{});
  sim.add_observer(&meter);
  metrics.observe(sim);
  RunResult result = sim.run();
  Summary summary = summarize(sim.state(), result, meter, "fifo", 0, metrics.job_metrics());
  summary.metric_keys = metrics.keys(RunEnd{sim.state(), result, summary, meter});
  std::ostringstream out;
  write_summary_json(out, summary);
  return nlohmann::ordered_json::parse(out.str());
}

} // namespace

TEST_CASE("docs/architecture.md shows tests/toy_metric.cpp as it is", "[metric][docs]") {
  std::string page = read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/docs/architecture.md");
  std::string code = read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/tests/toy_metric.cpp");
  CHECK(cpp_block_after(page, "### A summary metric") == code);
  // The registration the page shows is the line this test adds to the list.
  CHECK(page.find("X(peak_pending)") != std::string::npos);
}

TEST_CASE("the example metric peak_pending, registered by one line, writes its keys last",
          "[metric][docs]") {
  nlohmann::ordered_json with = summary_under_fifo(metrics_with_example());
  nlohmann::ordered_json without = summary_under_fifo(summary_metrics());
  // fifo starts jobs in submission order, and a job that does not fit blocks those behind it.
  // 0: A takes 3 GPUs (nothing waits). 10: B (4) does not fit: 1 waits. 20: C and D queue behind
  // B: 3 wait. 100: A ends, B starts: 2 wait. 150: B ends, C and D start: none. The most waiting
  // at once is 3, first at 20 s.
  REQUIRE(with.contains("peak_pending"));
  CHECK(with["peak_pending"] == nlohmann::ordered_json{{"jobs", 3}, {"at_s", 20.0}});
  // Every other key is the registered metrics' summary, in the same order; the new key is last.
  CHECK(with.back() == with["peak_pending"]);
  with.erase("peak_pending");
  CHECK(with.dump() == without.dump());
  CHECK_FALSE(without.contains("peak_pending"));
}
