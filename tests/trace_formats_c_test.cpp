// Real traces as they happened (run times observed on the GPU type that ran them).
#include "tests/support/harness.h"

#include "workloads/formats/muri.h"
#include "workloads/formats/openb.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <utility>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// Column `index` of jobs.csv for job `id`: id,submit_s,first_start_s,finish_s,jct_s,queue_s,
// run_s,...
double column_of(const std::string& jobs_csv, const std::string& id, int index) {
  std::istringstream in(jobs_csv);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(id + ",", 0) != 0) continue;
    std::istringstream fields(line);
    std::string f;
    for (int i = 0; i <= index; ++i)
      std::getline(fields, f, ',');
    return std::stod(f);
  }
  return -1;
}

double run_s_of(const std::string& jobs_csv, const std::string& id) {
  return column_of(jobs_csv, id, 6);
}

} // namespace

TEST_CASE("openb: a T4-pinned pod replays its observed run time on a cluster of T4s",
          "[trace][openb]") {
  ScratchDir dir;
  // The row of openb_pod_list_gpuspec25.csv (shared/traces/alibaba-openb-gpu-v2023), as is:
  // observed run time = deletion - scheduled = 10,959,245 - 6,595,531 = 4,363,714 s. Read as a
  // run time on the reference V100 it ran 1.754x longer on a T4 (7,655,638.6 s).
  std::string pods =
      dir.write("pods.csv",
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                "deletion_time,scheduled_time\n"
                "openb-pod-0012,8000,32768,1,1000,T4,LS,Running,6588193,10959245,6595531\n");
  std::string cluster = dir.write("t4.yaml", "nodes:\n  - count: 1\n    devices: {T4: 4}\n");
  auto r = run_dlsim("run --trace " + pods + " --format openb --cluster " + cluster +
                         " --policy fifo -q --out " + dir.file("out"),
                     dir);
  REQUIRE(r.code == 0);
  CHECK(run_s_of(read_file(dir.file("out/jobs.csv")), "openb-pod-0012") == 4363714);
}

namespace {

const std::string kMuri = std::string(DLSIM_SOURCE_DIR_FOR_TESTS) + "/traces/muri/";

// An 8-node cluster of 8 V100s each, the size of Muri's simulator/cluster_spec/n8g8.csv.
constexpr const char* kMuriCluster = "nodes:\n  - count: 8\n    devices: {V100: 8}\n";

std::size_t lines_with(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    n += line.find(what) != std::string::npos;
  return n;
}

} // namespace

TEST_CASE("muri: the published trace and job_type files import every job, times in ms",
          "[trace][muri][real]") {
  // Each count: awk -F, 'NR>1 && $7>0' traces/muri/FILE | wc -l (rows with a run time; all
  // of them have one).
  const std::vector<std::pair<const char*, std::size_t>> files = {
      {"trace1.csv", 1494},    {"trace2.csv", 5755},    {"trace3.csv", 992},
      {"trace4.csv", 2638},    {"job_type_1.csv", 992}, {"job_type_2.csv", 992},
      {"job_type_3.csv", 992}, {"job_type_4.csv", 992}};
  for (const auto& [name, count] : files) {
    INFO(name);
    Trace t = read_muri_trace(kMuri + name, ReadOptions{});
    CHECK(t.jobs.size() == count);
    CHECK(t.skipped == 0);
  }
  // trace1.csv line 3: "1,8,201694000,8787693,dqn,128,4472936000,201694000,509,435,8,0.5,0":
  // submitted at 201,694 s, runs 4,472,936 s, 8 GPUs, priority 0.
  Trace t = read_muri_trace(kMuri + "trace1.csv", ReadOptions{});
  const TraceJob& j = t.jobs[1];
  CHECK(t.name(j) == "1");
  CHECK(j.submit_s == 201694);
  CHECK(j.duration_s == 4472936);
  CHECK(j.workers * j.devices_per_worker == 8);
  CHECK(t.models.at(j.model) == "dqn");
  CHECK(t.jobs[0].priority == 1);
  // bert is the zoo's bert_base.
  Trace jt1 = read_muri_trace(kMuri + "job_type_1.csv", ReadOptions{});
  CHECK(jt1.models.at(jt1.jobs[0].model) == "bert_base");
}

TEST_CASE("muri: --format auto, and ms read as seconds gets a hint", "[trace][muri][errors]") {
  ScratchDir dir;
  CHECK(run_dlsim("validate --trace traces/muri/trace3.csv --format auto --cluster " +
                      dir.write("c.yaml", kMuriCluster) + " --unknown-models duration",
                  dir)
            .code == 0);
  // The Muri file given as tiresias: its header says ms.
  auto r =
      run_dlsim("validate --trace traces/muri/trace1.csv --format tiresias --skip-bad-jobs", dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("trace1.csv:1: iteration_time: the header has the columns of "
                                    "a Muri job list, whose times are in milliseconds"));
  // A tiresias file whose times are ms: trace1.csv's first job without the Muri columns. Its
  // 2,868,294,000 "s" are 91 years; as ms they are 33.2 days.
  std::string ms = dir.write("ms.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration,"
                                       "interval\n0,1,0,5853661,vgg16,2868294000,46122000\n");
  r = run_dlsim("validate --trace " + ms + " --format tiresias", dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("ms.csv:2: duration: expected a run time from 0 to 1e+09 s, "
                                    "got 2868294000 (so large a time makes sense only in "
                                    "milliseconds, as Muri's lists give them: give --format "
                                    "muri)"));
}

TEST_CASE("unknown models: an error by default, their recorded run time with "
          "--unknown-models=duration",
          "[trace][muri]") {
  ScratchDir dir;
  std::string cluster = dir.write("c.yaml", kMuriCluster);
  // trace1.csv's first job is a dqn, which the zoo lacks.
  auto r =
      run_dlsim("validate --trace traces/muri/trace1.csv --format muri --cluster " + cluster, dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("trace1.csv:2: model: job '0': unknown model 'dqn'"));
  CHECK_THAT(r.err, Catch::Contains("--unknown-models=duration"));
  r = run_dlsim("validate --trace traces/muri/trace1.csv --format muri --unknown-models duration "
                "--cluster " +
                    cluster,
                dir);
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("jobs whose model the zoo lacks run model-less on their "
                                    "recorded run times"));
  CHECK_THAT(r.out, Catch::Contains("jobs: 1494"));
}

TEST_CASE("muri: trace3 replays under fifo and tiresias", "[trace][muri][cli]") {
  ScratchDir dir;
  std::string cluster = dir.write("c.yaml", kMuriCluster);
  for (const char* policy : {"fifo", "tiresias"}) {
    INFO(policy);
    std::string out = dir.file(std::string("out-") + policy);
    auto r = run_dlsim(fmt::format("run --trace traces/muri/trace3.csv --format muri "
                                   "--unknown-models duration -q --cluster {} --policy {} --out {}",
                                   cluster, policy, out),
                       dir);
    REQUIRE(r.code == 0);
    // Every one of the 992 jobs finishes (the largest asks for 32 of the 64 GPUs).
    CHECK(lines_with(read_file(out + "/jobs.csv"), ",finished") == 992);
  }
  CHECK(read_file(dir.file("out-fifo/jobs.csv")) != read_file(dir.file("out-tiresias/jobs.csv")));
}

TEST_CASE("muri: the four job_type files differ where dlsim models what differs", "[trace][muri]") {
  // The four files share submit times, GPU counts and durations (awk -F, 'NR>1{print $2,$3,$7}'
  // gives the same lines); they differ in models, resource times and priorities. dlsim has no
  // multi-resource interleaving (docs/traces.md#muri---format-muri), so under fifo every job
  // runs its recorded duration and the JCTs are equal, while the models' utilizations make the
  // effective GPU utilization differ; kube-batch's priority plugin orders by the differing
  // priorities, so its queueing differs too.
  ScratchDir dir;
  std::string cluster = dir.write("c.yaml", kMuriCluster);
  auto summary = [&](int i, const char* policy) {
    std::string out = dir.file(fmt::format("out-{}-{}", policy, i));
    auto r = run_dlsim(fmt::format("run --trace traces/muri/job_type_{}.csv --format muri "
                                   "--unknown-models duration -q --events off --timeline off "
                                   "--cluster {} --policy {} --out {}",
                                   i, cluster, policy, out),
                       dir);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(read_file(out + "/summary.json"));
  };
  std::vector<nlohmann::json> fifo, kube;
  for (int i = 1; i <= 4; ++i) {
    fifo.push_back(summary(i, "fifo"));
    kube.push_back(summary(i, "kube-batch"));
  }
  for (int i = 0; i < 4; ++i) {
    INFO("job_type_" << i + 1);
    CHECK(fifo[i]["finished"] == 992);
    CHECK(fifo[i]["jct_mean_s"] == fifo[0]["jct_mean_s"]);
    for (int k = i + 1; k < 4; ++k) {
      CHECK(fifo[i]["gpu_util_effective"] != fifo[k]["gpu_util_effective"]);
      CHECK(kube[i]["queue_mean_s"] != kube[k]["queue_mean_s"]);
    }
  }
}

TEST_CASE("a job that fits no node says which resource is missing", "[trace][errors]") {
  ScratchDir dir;
  std::string cluster =
      dir.write("c.yaml", "nodes:\n  - count: 2\n    devices: {T4: 4}\n    cpu_cores: 64\n"
                          "    memory_gb: 256\n");
  auto err = [&](const std::string& csv) {
    return run_dlsim("validate --trace " + dir.write("t.csv", csv) + " --cluster " + cluster, dir)
        .err;
  };
  CHECK_THAT(err("id,submit_s,workers,gpus_per_worker,duration_s\na,0,1,8,10\n"),
             Catch::Contains("1 workers of 8 device(s) each cannot fit: the cluster holds at most "
                             "0 such workers at once: no node has 8 T4 GPUs (the most on one node: "
                             "4)"));
  CHECK_THAT(err("id,submit_s,workers,gpus_per_worker,duration_s,cpus_per_worker\na,0,1,2,10,96\n"),
             Catch::Contains("no node with 2 T4 GPUs has 96 CPU cores (the most: 64)"));
  CHECK_THAT(
      err("id,submit_s,workers,gpus_per_worker,duration_s,mem_gb_per_worker\na,0,1,2,10,512\n"),
      Catch::Contains("no node with 2 T4 GPUs has 512 GB of memory (the most: 256 GB)"));
  // A job that may use any GPU type: the largest node's figure over every GPU type.
  cluster = dir.write("c2.yaml", "nodes:\n  - count: 1\n    devices: {T4: 4}\n"
                                 "  - count: 1\n    devices: {V100: 2}\n");
  CHECK_THAT(err("id,submit_s,workers,gpus_per_worker,duration_s\na,0,1,8,10\n"),
             Catch::Contains("no node has 8 GPUs (the most on one node: 4)"));
}

TEST_CASE("openb: pods never scheduled are dropped, and replayed with "
          "trace.openb_replay_pending",
          "[trace][openb]") {
  ScratchDir dir;
  const std::string header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                             "creation_time,deletion_time,scheduled_time\n";
  std::string pods = dir.write("p.csv", header + "a,1000,1024,1,1000,,LS,Running,0,100,10\n" +
                                            "b,1000,1024,1,1000,,LS,Pending,5,50,\n");
  Trace t = read_openb_trace(pods, ReadOptions{});
  CHECK(t.jobs.size() == 1);
  ReadOptions keep;
  keep.openb_replay_pending = true;
  t = read_openb_trace(pods, keep);
  REQUIRE(t.jobs.size() == 2);
  CHECK(t.name(t.jobs[1]) == "b");
  CHECK(t.jobs[1].duration_s == 45); // never scheduled: from creation 5 to deletion 50
}

TEST_CASE("openb: a CPU-only pod holds host cores on a GPU node, and a GPU pod waits for them",
          "[trace][openb]") {
  ScratchDir dir;
  // One node as the openb clusters make them: a T4 and 16 cores. Pod c (CPU only, a host task)
  // holds 12 cores from 0 to 100 s; pod g, submitted at 1 s, needs the T4 and 8 cores, which
  // the 16 - 12 = 4 free cores cannot give until c ends: g starts at 100 and, running its
  // observed 51 - 1 = 50 s on the T4, finishes at 150. Without c it would start at 1.
  std::string pods =
      dir.write("pods.csv",
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                "deletion_time,scheduled_time\n"
                "c,12000,1024,0,0,,LS,Running,0,100,0\n"
                "g,8000,1024,1,1000,T4,LS,Running,1,51,1\n");
  std::string cluster = dir.write("n.yaml", "nodes:\n  - count: 1\n    devices: {T4: 1}\n"
                                            "    cpu_cores: 16\n    memory_gb: 64\n");
  auto r = run_dlsim("run --trace " + pods + " --format openb --cluster " + cluster +
                         " --policy fifo -q --out " + dir.file("out"),
                     dir);
  REQUIRE(r.code == 0);
  std::string jobs = read_file(dir.file("out/jobs.csv"));
  CHECK(run_s_of(jobs, "c") == 100);     // its observed run time
  CHECK(column_of(jobs, "g", 2) == 100); // first_start_s
  CHECK(column_of(jobs, "g", 3) == 150); // finish_s
  // On a cluster whose nodes have 8 cores (the default, 8 per device) the 12-core pod can never
  // run: an error naming it and the largest node's figures.
  r = run_dlsim("validate --trace " + pods + " --format openb --cluster " +
                    dir.write("t4.yaml", "nodes:\n  - count: 1\n    devices: {T4: 1}\n"),
                dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("pods.csv:2:"));
  CHECK_THAT(r.err, Catch::Contains("job 'c'"));
  CHECK_THAT(r.err, Catch::Contains("needs 12 CPU cores on one node; the largest node has 8 "
                                    "cores (64 GB)"));
}
