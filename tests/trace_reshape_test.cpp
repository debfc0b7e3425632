// trace.reshape: fit-nodes, workers that no node holds split into node-sized ones
// (workloads/trace_reshape.h, docs/traces.md#workers-larger-than-a-node).
#include "sim/engine/error.h"
#include "support/harness.h"
#include "workloads/build_workload.h"
#include "workloads/trace_reshape.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// Two nodes of 4 V100 and one of 2 K80: any GPU fits at most 4 per node, K80 at most 2.
constexpr const char* kCluster = R"(
nodes:
  - count: 2
    devices: {V100: 4}
  - count: 1
    devices: {K80: 2}
)";

const TraceJob& job(const Trace& t, const std::string& name) {
  for (const auto& j : t.jobs) {
    if (t.name(j) == name) return j;
  }
  FAIL("no job " << name);
  return t.jobs.front();
}

} // namespace

TEST_CASE("reshape splits a worker no node holds by the smallest factor that fits",
          "[trace][reshape]") {
  Cluster c = cluster_from_yaml(kCluster);
  Trace t = trace_from_csv("id,submit_s,workers,gpus_per_worker,cpus_per_worker,mem_gb_per_worker,"
                           "device_type,min_workers,max_workers,duration_s\n"
                           "eight,0,1,8,16,64,any-gpu,1,1,100\n"
                           "six,0,2,6,12,24,any-gpu,2,2,100\n"
                           "four,0,1,4,8,32,any-gpu,1,1,100\n"
                           "k80,0,1,5,10,20,K80,1,1,100\n"
                           "elastic,0,1,8,8,16,any-gpu,1,2,100\n");
  // Oversized: eight (8 > 4), six (6 > 4), k80 (5 > 2 K80), elastic (8 > 4); not four.
  CHECK(count_oversized_workers(t, c) == 4);
  ReshapeReport r = reshape_to_nodes(t, c);
  CHECK(r.reshaped == 4);
  CHECK(r.first_example == "job eight: 1 x 8 -> 2 x 4 (a node holds at most 4)");
  // eight: k = ceil(8 / 4) = 2 divides 8: 2 workers of 4; CPUs 16 / 2 = 8, memory 64 / 2 = 32.
  CHECK(job(t, "eight").workers == 2);
  CHECK(job(t, "eight").devices_per_worker == 4);
  CHECK(job(t, "eight").cpus_per_worker == 8);
  CHECK(job(t, "eight").mem_gb_per_worker == 32);
  // six: k = ceil(6 / 4) = 2 divides 6: 2 x 2 = 4 workers of 3; CPUs 12 / 2 = 6, memory 12.
  CHECK(job(t, "six").workers == 4);
  CHECK(job(t, "six").devices_per_worker == 3);
  CHECK(job(t, "six").cpus_per_worker == 6);
  CHECK(job(t, "six").mem_gb_per_worker == 12);
  // four fits a V100 node as it is.
  CHECK(job(t, "four").workers == 1);
  CHECK(job(t, "four").devices_per_worker == 4);
  // k80: k = ceil(5 / 2) = 3, then 4, do not divide 5; 5 does: 5 workers of 1 K80, 2 CPUs each.
  CHECK(job(t, "k80").workers == 5);
  CHECK(job(t, "k80").devices_per_worker == 1);
  CHECK(job(t, "k80").cpus_per_worker == 2);
  // elastic: k = 2 scales its bounds too: 2 to 4 workers of 4 (same devices: 8 to 16).
  CHECK(job(t, "elastic").workers == 2);
  CHECK(job(t, "elastic").min_workers == 2);
  CHECK(job(t, "elastic").max_workers == 4);
  CHECK(count_oversized_workers(t, c) == 0);
}

TEST_CASE("Tiresias' 8-GPU jobs run on 4-GPU nodes only with trace.reshape", "[cli][reshape]") {
  ScratchDir dir;
  std::string cluster =
      dir.write("c.yaml", "nodes:\n  - count: 4\n    devices: {V100: 4}\n"); // Tiresias' 4 x 4
  const std::string base = "run --trace traces/tiresias_60_job.csv --format tiresias --cluster " +
                           cluster + " -q --out " + dir.file("o");
  // The reader shapes 8 GPUs as one worker of 8 (gpu_shape.h); 60_job.csv has ten such jobs
  // (awk -F, 'NR > 1 && $2 == 8' traces/tiresias_60_job.csv | wc -l).
  Outcome refused = run_dlsim(base, dir);
  CHECK(refused.code == 1);
  CHECK_THAT(refused.err, Catch::Contains("split the workers of the 10 jobs whose workers no node "
                                          "holds with --set trace.reshape=fit-nodes"));
  Outcome split = run_dlsim(base + " --set trace.reshape=fit-nodes", dir);
  REQUIRE(split.code == 0);
  // Each 8-GPU job is now 2 workers of 4: it runs on 2 whole nodes (jobs.csv: gpus, nodes).
  std::ifstream jobs(dir.file("o") + "/jobs.csv");
  std::string line;
  std::getline(jobs, line);
  int eight = 0;
  while (std::getline(jobs, line)) {
    std::stringstream row(line);
    std::string cell;
    std::vector<std::string> cells;
    while (std::getline(row, cell, ','))
      cells.push_back(cell);
    if (cells.at(7) == "8") {
      ++eight;
      CHECK(cells.at(8) == "2");
    }
  }
  CHECK(eight == 10);
}

TEST_CASE("build_workload counts the oversized jobs of the whole trace, also when one is an error",
          "[trace][reshape]") {
  // One node of 4 V100: a worker of 8 fits nowhere. In submit order: b (1 s), d (2), c (3, 8
  // GPUs), a (5, 8 GPUs), e (6): the file order is not the submit order, so the loop goes by a
  // sorted order.
  Cluster c = cluster_from_yaml("nodes:\n  - count: 1\n    devices: {V100: 4}\n");
  const std::string csv = "id,submit_s,workers,gpus_per_worker,duration_s\n"
                          "a,5,1,8,100\n"
                          "b,1,1,1,100\n"
                          "c,3,1,8,100\n"
                          "d,2,1,1,100\n"
                          "e,6,1,2,100\n";
  CHECK(count_oversized_workers(trace_from_csv(csv), c) == 2); // a and c
  WorkloadOptions options;
  std::size_t oversized = 99;
  options.oversized_workers = &oversized;
  // Without --skip-bad-jobs, c is the error; a, after it, is still counted: 2.
  CHECK_THROWS_AS(build_workload(trace_from_csv(csv), zoo(), c, options), InputError);
  CHECK(oversized == 2);
  // Skipping them, the loop reaches every job: 2 again, and b, d, e are kept.
  options.skip_bad_jobs = true;
  oversized = 99;
  const Workload w = build_workload(trace_from_csv(csv), zoo(), c, options);
  CHECK(oversized == 2);
  CHECK(w.jobs.size() == 3);
}
