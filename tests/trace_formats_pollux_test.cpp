// Pollux's workloads, with run times derived from the applications' profiles
// (docs/traces.md#pollux---format-pollux).
#include "tests/support/harness.h"
#include "tests/support/skip.h"

#include "workloads/formats/pollux.h"
#include "workloads/formats/pollux_profile.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

using namespace dlsim;
using namespace dlsim::test;
namespace fs = std::filesystem;

namespace {

const std::string kSource = DLSIM_SOURCE_DIR_FOR_TESTS;
const std::string kProfiles = kSource + "/traces/pollux-profiles";
const std::string kWorkloads = kSource + "/../shared/traces/pollux-workloads";

ReadOptions with_profiles(const std::string& dir = kProfiles) {
  ReadOptions o;
  o.pollux_profiles = dir;
  return o;
}

// run_s (column 7) of job `id` in jobs.csv.
double run_s_of(const std::string& jobs_csv, const std::string& id) {
  std::istringstream in(jobs_csv);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(id + ",", 0) != 0) continue;
    std::istringstream fields(line);
    std::string f;
    for (int i = 0; i <= 6; ++i)
      std::getline(fields, f, ',');
    return std::stod(f);
  }
  return -1;
}

// A profile small enough to work by hand: placement "1" measured at local_bsz 10 and 20,
// validated batch sizes 10 and 40, two epochs.
std::string write_toy_profile(ScratchDir& dir) {
  fs::create_directories(dir.file("profiles/toy"));
  dir.write("profiles/toy/placements.csv", "placement,local_bsz,step_time,sync_time\n"
                                           "1,10,1.0,0.1\n"
                                           "1,20,1.5,0.1\n");
  dir.write("profiles/toy/scalability.csv",
            "num_nodes,num_replicas,local_bsz,step_time,sync_time\n");
  dir.write("profiles/toy/validation-10.csv", "progress,iteration,metric,grad_sqr,grad_var\n"
                                              "100,100,0.5,1.0,3.0\n"
                                              "250,250,0.6,1.0,1.0\n");
  dir.write("profiles/toy/validation-40.csv", "progress,iteration,metric,grad_sqr,grad_var\n"
                                              "110,28,0.5,2.0,6.0\n"
                                              "240,60,0.6,1.0,3.0\n");
  return dir.file("profiles");
}

} // namespace

TEST_CASE("pollux: a run time worked by hand from the profile rows", "[trace][pollux]") {
  ScratchDir dir;
  PolluxProfile toy = load_pollux_profile(write_toy_profile(dir), "toy", 0);
  CHECK(toy.init_batch_size == 10);
  CHECK(toy.max_batch_size == 40);
  CHECK(toy.max_local_bsz == 20);
  CHECK(toy.epochs == 2);
  // 1 replica, batch 30: local 30; accumulation ceil(30 / 20) - 1 = 1 (and a single replica
  // above the initial batch 10 accumulates at least once); micro-batch ceil(30 / 2) = 15, under
  // the cap floor(40 / 2) = 20; trains at 1 x 15 x 2 = 30.
  // Step time at local 15, between the rows at 10 and 20: 1.0 + 0.5 x (1.5 - 1.0) = 1.25, sync
  // 0.1; with one accumulation step 1.25 + 1 x (1.25 - 0.1) = 2.4 s.
  // Progress per epoch: P(1) = min(100, 110) = 100, P(2) = min(250, 240) = 240.
  // Gradient statistics at batch 30, w = (30 - 10) / (40 - 10) = 2/3 of the way to batch 40;
  // scale = 30 / 10 = 3; gain = (var + sqr) / (var / scale + sqr):
  //   epoch 0: sqr = 1 + 2/3 x 1 = 5/3, var = 3 + 2/3 x 3 = 5: gain = (20/3) / (10/3) = 2
  //   epoch 1: sqr = 1, var = 1 + 2/3 x 2 = 7/3: gain = (10/3) / (16/9) = 1.875
  // Run time = 100 x 2.4 / 2 + (240 - 100) x 2.4 / 1.875 = 120 + 179.2 = 299.2 s.
  std::string error;
  PolluxRun run = pollux_run_time(toy, 1, 30, error);
  CHECK(error.empty());
  CHECK(run.placement == "1");
  CHECK(run.accum_steps == 1);
  CHECK(run.local_bsz == 15);
  CHECK(run.batch_size == 30);
  CHECK(run.step_time_s == Approx(2.4).epsilon(1e-12));
  CHECK(run.run_time_s == Approx(299.2).epsilon(1e-12));

  // Out of the profile's range: no placement "2"; a batch below the smallest validated one.
  pollux_run_time(toy, 2, 30, error);
  CHECK(error == "no measured step time for 2 replicas on 1 nodes of 4 GPUs (placement '2') in "
                 "toy's placements.csv or scalability.csv");
  // A bad profile row names its own file and line.
  dir.write("profiles/toy/placements.csv", "placement,local_bsz,step_time,sync_time\n"
                                           "1,10,1.0,0.1\n"
                                           "1,0.5,1.5,0.1\n");
  CHECK_THROWS_WITH(load_pollux_profile(dir.file("profiles"), "toy", 0),
                    dir.file("profiles") +
                        "/toy/placements.csv:3: local_bsz: expected an integer, got '0.5'");
  pollux_run_time(toy, 1, 5, error);
  CHECK(error == "1 replicas with a batch of 5 train at 5 per step, below the smallest validated "
                 "batch size of 10 (toy)");
}

TEST_CASE("pollux: a bert job's run time from the bundled profile rows", "[trace][pollux]") {
  // bert, 4 replicas, batch 48 (the two "bert,4,48" rows of the Pollux workloads). The initial
  // (smallest validated) batch is 12 and bert's largest local_bsz is 12: local 48 / 4 = 12, no
  // accumulation, placement "4". traces/pollux-profiles/bert/placements.csv row
  // "4,12,0.9571182131767273,0.09286786985397338": a step takes 0.9571182131767273 s.
  // Progress: P(1) = 7387.0 and P(2) = 14774.0 (validation-12.csv, the least of the six files).
  // Gain at scale 48 / 12 = 4 from validation-48.csv's rows:
  //   epoch 0: sqr 57286300666507.94, var 6875640191433787.0:
  //     (6875640191433787 + 57286300666507.94) / (6875640191433787 / 4 + 57286300666507.94)
  //     = 6932926492100295 / 1776196348524955 = 3.903243297
  //   epoch 1: sqr 69055119274.80128, var 43961892733847.03:
  //     (43961892733847.03 + 69055119274.80128) / (43961892733847.03 / 4 + 69055119274.80128)
  //     = 44030947853121.8 / 11059528302736.6 = 3.981268156
  // Run time = 7387 x 0.9571182131767273 / 3.903243297 + 7387 x 0.9571182131767273 / 3.981268156
  //          = 1811.373697 + 1775.874411 = 3587.248108 s.
  PolluxProfile bert = load_pollux_profile(kProfiles, "bert", 0);
  std::string error;
  PolluxRun run = pollux_run_time(bert, 4, 48, error);
  CHECK(error.empty());
  CHECK(run.placement == "4");
  CHECK(run.run_time_s == Approx(3587.248108).epsilon(1e-9));
  // 6 replicas on nodes of 4 are the placement (4, 2), named by its smallest rotation "24".
  pollux_run_time(bert, 6, 384, error);
  CHECK(error.empty());
  CHECK(pollux_run_time(bert, 6, 384, error).placement == "24");
}

TEST_CASE("pollux: every real workload file imports every job", "[trace][pollux][real]") {
  // 32 files, 4 directories x workload-1..8; each count is
  //   awk -F, 'NR>1 && $1!=""' FILE | wc -l
  // 160 in workloads/ and workloads-realistic/, 80 in workloads-0.5/, 240 in workloads-1.5/.
  const std::vector<std::pair<const char*, std::size_t>> dirs = {{"workloads", 160},
                                                                 {"workloads-0.5", 80},
                                                                 {"workloads-1.5", 240},
                                                                 {"workloads-realistic", 160}};
  std::size_t total = 0;
  for (const auto& [d, count] : dirs) {
    for (int i = 1; i <= 8; ++i) {
      std::string file = fmt::format("{}/{}/workload-{}.csv", kWorkloads, d, i);
      DLSIM_SKIP_UNLESS(fs::exists(file),
                        file << " is absent (the real traces live in ../shared/traces)",
                        "DLSIM_REQUIRE_SHARED_TRACES");
      INFO(file);
      Trace t = read_pollux_trace(file, with_profiles());
      CHECK(t.jobs.size() == count);
      CHECK(t.skipped == 0);
      for (const auto& j : t.jobs) {
        CHECK(j.duration_s > 0);
        CHECK(t.device_types.at(j.observed_type) == "T4");
      }
      total += t.jobs.size();
    }
  }
  // cat */workload-*.csv | awk -F, '$1!="name" && $1!=""' | wc -l = 1280 + 640 + 1920 + 1280.
  CHECK(total == 5120);
  // The bundled copy is workloads/workload-1.csv: its first row "cifar10-0,107,cifar10,6,2048"
  // is 6 replicas of one GPU, resnet18, submitted at 107 s.
  Trace t = read_pollux_trace(kSource + "/traces/pollux_workload-1.csv", with_profiles());
  REQUIRE(t.jobs.size() == 160);
  CHECK(t.name(t.jobs[0]) == "cifar10-0");
  CHECK(t.jobs[0].submit_s == 107);
  CHECK(t.jobs[0].workers == 6);
  CHECK(t.jobs[0].devices_per_worker == 1);
  CHECK(t.models.at(t.jobs[0].model) == "resnet18");
}

TEST_CASE("pollux: an application without a profile is a file:line error",
          "[trace][pollux][errors]") {
  ScratchDir dir;
  std::string w = dir.write("w.csv", "name,time,application,num_replicas,batch_size\n"
                                     "a,0,toy,1,30\n"
                                     "b,5,gpt3,2,64\n");
  std::string profiles = write_toy_profile(dir);
  try {
    read_pollux_trace(w, with_profiles(profiles));
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          fmt::format("{}:3: application: no Pollux profile for 'gpt3' in {} (the profiles: toy)",
                      w, profiles));
  }
  // Skippable like any bad row; the toy job keeps its 299.2 s.
  ReadOptions skip = with_profiles(profiles);
  skip.skip_bad_jobs = true;
  Trace t = read_pollux_trace(w, skip);
  CHECK(t.skipped == 1);
  REQUIRE(t.jobs.size() == 1);
  CHECK(t.jobs[0].duration_s == Approx(299.2).epsilon(1e-12));
  // A configuration the profile does not cover names the batch_size column.
  std::string big = dir.write("big.csv", "name,time,application,num_replicas,batch_size\n"
                                         "a,0,toy,2,30\n");
  CHECK_THROWS_WITH(
      read_pollux_trace(big, with_profiles(profiles)),
      Catch::StartsWith(big + ":2: batch_size: no measured step time for 2 replicas"));
  // Through the CLI, with the bundled profiles.
  auto r = run_dlsim("validate --trace " + w + " --format pollux", dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("w.csv:2: application: no Pollux profile for 'toy'"));
  CHECK_THAT(r.err,
             Catch::Contains("(the profiles: bert, cifar10, deepspeech2, imagenet, ncf, yolov3)"));
}

TEST_CASE("pollux: --format auto, and a job runs its profiled time on T4s and the zoo's ratio on "
          "V100s",
          "[trace][pollux][cli]") {
  ScratchDir dir;
  std::string w = dir.write("w.csv", "name,time,application,num_replicas,batch_size\n"
                                     "bert-0,0,bert,4,48\n");
  auto r = run_dlsim("run --trace " + w +
                         " --format auto --cluster configs/clusters/pollux.yaml "
                         "--policy fifo -q --out " +
                         dir.file("t4"),
                     dir);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("format: guessed pollux"));
  // 3587.248108 s, worked out in the test above.
  CHECK(run_s_of(read_file(dir.file("t4/jobs.csv")), "bert-0") ==
        Approx(3587.248108).epsilon(1e-6));
  // On V100s (configs/clusters/tiny.yaml) bert_base's zoo times, T4 0.92 s and V100 0.286 s per
  // iteration, give 3587.248108 x 0.286 / 0.92 = 1115.166 s.
  r = run_dlsim("run --trace " + w +
                    " --format pollux --cluster configs/clusters/tiny.yaml "
                    "--policy fifo -q --out " +
                    dir.file("v100"),
                dir);
  REQUIRE(r.code == 0);
  CHECK(run_s_of(read_file(dir.file("v100/jobs.csv")), "bert-0") ==
        Approx(3587.248108 * 0.286 / 0.92).epsilon(1e-6));
}

TEST_CASE("pollux: the bundled workload replays under fifo and tiresias", "[trace][pollux][cli]") {
  ScratchDir dir;
  for (const char* policy : {"fifo", "tiresias"}) {
    INFO(policy);
    std::string out = dir.file(std::string("out-") + policy);
    auto r = run_dlsim(fmt::format("run --trace traces/pollux_workload-1.csv --format pollux "
                                   "--cluster configs/clusters/pollux.yaml -q --events off "
                                   "--timeline off --policy {} --out {}",
                                   policy, out),
                       dir);
    REQUIRE(r.code == 0);
    auto s = nlohmann::json::parse(read_file(out + "/summary.json"));
    CHECK(s["finished"] == 160);
  }
  CHECK(read_file(dir.file("out-fifo/jobs.csv")) != read_file(dir.file("out-tiresias/jobs.csv")));
}

TEST_CASE("pollux: a yolov3 job trains the zoo's yolov3: its profiled time on T4s, the zoo's ratio "
          "on V100s",
          "[trace][pollux][cli][zoo]") {
  CHECK(pollux_application_to_zoo("yolov3") == "yolov3");
  ScratchDir dir;
  std::string w = dir.write("w.csv", "name,time,application,num_replicas,batch_size\n"
                                     "yolov3-0,0,yolov3,1,8\n");
  std::string error;
  const double profiled =
      pollux_run_time(load_pollux_profile(kProfiles, "yolov3", 8), 1, 8, error).run_time_s;
  REQUIRE(error.empty());
  auto r = run_dlsim("run --trace " + w +
                         " --format pollux --cluster configs/clusters/pollux.yaml --policy fifo "
                         "-q --out " +
                         dir.file("t4"),
                     dir);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, !Catch::Contains("model-less"));
  CHECK(run_s_of(read_file(dir.file("t4/jobs.csv")), "yolov3-0") == Approx(profiled).epsilon(1e-6));
  // On V100s the zoo's yolov3 times, T4 0.575 s and V100 0.330 s per iteration
  // (configs/models/zoo.yaml), scale it by 0.330 / 0.575 = 0.5739; model-less it would have been
  // the catalog's rel_throughput instead.
  r = run_dlsim("run --trace " + w +
                    " --format pollux --cluster configs/clusters/tiny.yaml --policy fifo -q "
                    "--out " +
                    dir.file("v100"),
                dir);
  REQUIRE(r.code == 0);
  CHECK(run_s_of(read_file(dir.file("v100/jobs.csv")), "yolov3-0") ==
        Approx(profiled * 0.330 / 0.575).epsilon(1e-6));
}
