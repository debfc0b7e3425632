// Gavel's and Shockwave's .trace files (format gavel): the three forms read into the expected
// jobs by hand, the job-type names, bad input, and the published samples in ../shared/traces
// (skipped with a message when absent).
#include "tests/support/harness.h"
#include "tests/support/skip.h"

#include "sim/cluster/device_catalog.h"
#include "sim/engine/error.h"
#include "workloads/build_workload.h"
#include "workloads/formats/format_guess.h"
#include "workloads/formats/gavel.h"
#include "workloads/model_zoo.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <sstream>

using namespace dlsim;
using namespace dlsim::test;

namespace {

const std::string kShared = DLSIM_SOURCE_DIR_FOR_TESTS "/../shared/traces";

const ModelZoo& gavel_zoo() {
  static const ModelZoo z = load_model_zoo(DLSIM_SOURCE_DIR_FOR_TESTS "/configs/models/gavel.yaml");
  return z;
}

// 4 nodes x 4 V100 + 4 x 4 P100.
Cluster v100_p100() {
  return cluster_from_yaml("nodes:\n  - count: 4\n    devices: {V100: 4}\n"
                           "  - count: 4\n    devices: {P100: 4}\n");
}

// Gavel's msr form: job_type, command, num_steps_arg, needs_data_dir, total_steps,
// arrival_time, scale_factor (a line of msr/seed=0/0e4a51.trace with 4 GPUs and 95,120 steps).
constexpr const char* kLine7 =
    "Transformer (batch size 128)\tcd %s/gpusched/workloads/pytorch/translation && "
    "python3 train.py -batch_size 128\t-step\t1\t95120\t6.000000\t4\n";
// Gavel's parse_trace form (physical_cluster/small_test.trace, line 2).
constexpr const char* kLine10 =
    "Recommendation (batch size 8192)\tpython3 train.py --data_dir "
    "%s/ml-20m/pro_sg/ --batch_size 8192\trecommendation\t-n\t1\t36\t1\t1\t-1."
    "000000\t0\n";
// Shockwave's form (the first line of its 120-job TACC trace).
constexpr const char* kLine12 =
    "LM (batch size 10)\tpython3 main.py --cuda --data %s/wikitext2 --batch_size "
    "10\tlanguage_modeling\t--steps\t1\t134583\t1\tgns\t1\t-1.000000\t1418\t0\n";

} // namespace

TEST_CASE("gavel: job types become configs/models/gavel.yaml's model names", "[formats][gavel]") {
  CHECK(gavel_job_type_model("ResNet-18 (batch size 16)") == "gavel_resnet18_bs16");
  CHECK(gavel_job_type_model("LM (batch size 80)") == "gavel_lm_bs80");
  CHECK(gavel_job_type_model("A3C") == "gavel_a3c");
  CHECK(gavel_job_type_model("CycleGAN") == "gavel_cyclegan");
  CHECK_FALSE(gavel_job_type_model("ResNet-50 (batch 32)"));
  CHECK_FALSE(gavel_job_type_model("ResNet-50 (batch size 0)"));
  CHECK_FALSE(gavel_job_type_model("ResNet-50 (batch size 32"));
  CHECK_FALSE(gavel_job_type_model(" (batch size 32)"));
  CHECK_FALSE(gavel_job_type_model(""));
  // Every job type of the published traces is a model of configs/models/gavel.yaml.
  for (const char* type :
       {"ResNet-18 (batch size 256)", "ResNet-50 (batch size 128)", "Transformer (batch size 16)",
        "Recommendation (batch size 512)", "LM (batch size 5)", "A3C", "CycleGAN"}) {
    CHECK(gavel_zoo().find(*gavel_job_type_model(type)));
  }
}

TEST_CASE("gavel: a 7-field, a 10-field and a 12-field line read into the expected jobs",
          "[formats][gavel]") {
  ScratchDir dir;
  std::string f7 = dir.write("msr.trace", std::string(kLine7) + kLine7);
  Trace t7 = read_gavel_trace(f7, ReadOptions{});
  REQUIRE(t7.jobs.size() == 2);
  const TraceJob& a = t7.jobs[0];
  CHECK(t7.name(a) == "0"); // Gavel's job ids: 0, 1, ... in line order
  CHECK(t7.name(t7.jobs[1]) == "1");
  CHECK(a.submit_s == 6);
  CHECK(a.workers == 4); // scale_factor 4: four one-GPU workers
  CHECK(a.devices_per_worker == 1);
  CHECK(t7.models.at(a.model) == "gavel_transformer_bs128");
  // 95,120 steps counted over the 4 workers = 95,120 / 4 = 23,780 iterations of the request.
  CHECK(a.iterations == 23780);
  CHECK(a.duration_s < 0);
  CHECK(t7.warnings.empty());

  std::string f10 = dir.write("small.trace", kLine10);
  Trace t10 = read_gavel_trace(f10, ReadOptions{});
  REQUIRE(t10.jobs.size() == 1);
  CHECK(t10.models.at(t10.jobs[0].model) == "gavel_recommendation_bs8192");
  CHECK(t10.jobs[0].iterations == 36);
  CHECK(t10.jobs[0].workers == 1);
  CHECK(t10.jobs[0].submit_s == 0);

  std::string f12 = dir.write("shockwave.trace", kLine12);
  Trace t12 = read_gavel_trace(f12, ReadOptions{});
  REQUIRE(t12.jobs.size() == 1);
  const TraceJob& s = t12.jobs[0];
  CHECK(t12.models.at(s.model) == "gavel_lm_bs10");
  CHECK(s.batch_mode == 1); // gns
  // Shockwave's duration: 134,583 steps / 94.91 steps/s (its V100 throughput) = 1,418 s.
  CHECK(s.duration_s == 1418);
  // Its 134,583 steps on 1 GPU are kept for a throughputs file; the work is the duration.
  CHECK(s.iterations == 134583);
  CHECK(s.duration_is_work);
  CHECK(t12.device_types.at(s.observed_type) == "V100");
  REQUIRE(t12.warnings.size() == 1);
  CHECK(t12.warnings[0] == f12 + ": 1 jobs change their batch size during training in Shockwave "
                                 "(1 gns, 0 accordion); dlsim runs them at their trace batch size "
                                 "throughout, as Shockwave's static jobs, unless "
                                 "trace.batch_sizes is shockwave");

  // Resolved against Gavel's zoo: the 7-field job runs 23,780 x 0.1836 s (1 / 5.446 it/s on a
  // V100) = 4,366.008 s on V100s; the 12-field job its 1,418 s on a V100 and
  // 1,418 x 0.01297 / 0.01225 = 1,501.344 s on a P100.
  Workload w7 = build_workload(std::move(t7), gavel_zoo(), v100_p100(), WorkloadOptions{});
  const ModelId m7 = w7.jobs[0].request.model;
  CHECK(w7.jobs[0].iterations * w7.perf.iter_time(m7, w7.reference_device) == Approx(4366.008));
  Workload w12 = build_workload(std::move(t12), gavel_zoo(), v100_p100(), WorkloadOptions{});
  const JobSpec& j = w12.jobs[0];
  CHECK(j.iterations * w12.perf.iter_time(j.request.model, w12.reference_device) == Approx(1418));
  auto p100 = find_device_type(v100_p100().types, "P100");
  REQUIRE(p100);
  CHECK(j.iterations * w12.perf.iter_time(j.request.model, *p100) == Approx(1501.344));
}

TEST_CASE("gavel: a job type the default zoo knows by its measured_as name", "[formats][gavel]") {
  ScratchDir dir;
  // configs/models/zoo.yaml's resnet50 is Gavel's ResNet-50 at batch 32 (measured_as).
  std::string f = dir.write("r.trace", "ResNet-50 (batch size 32)\tcmd\t-step\t1\t1000\t0\t1\n"
                                       "ResNet-18 (batch size 16)\tcmd\t-step\t1\t1000\t0\t1\n");
  Trace t = read_gavel_trace(f, ReadOptions{});
  Trace copy = read_gavel_trace(f, ReadOptions{});
  // The second job type is not in the default zoo: the error names the line and Gavel's zoo.
  CHECK(message_of([&] { build_workload(std::move(t), zoo(), v100_p100(), WorkloadOptions{}); }) ==
        f + ":2: model: job '1': unknown model 'gavel_resnet18_bs16' (see dlsim list models; "
            "--unknown-models=duration runs such jobs on their recorded run times): Gavel's job "
            "types are the models of configs/models/gavel.yaml (--set "
            "models=configs/models/gavel.yaml)");
  // Run times cannot stand in for it: a Gavel line gives steps, not a run time.
  WorkloadOptions on_duration;
  on_duration.unknown_models_on_duration = true;
  CHECK(message_of([&] { build_workload(std::move(copy), zoo(), v100_p100(), on_duration); }) ==
        f + ":2: model: job '1': unknown model 'gavel_resnet18_bs16', and the trace gives the "
            "job's length in iterations, not as a run time: --unknown-models=duration cannot run "
            "it");
  Trace one = read_gavel_trace(dir.write("one.trace", "ResNet-50 (batch size 32)\tcmd\t-step\t1\t"
                                                      "1000\t0\t1\n"),
                               ReadOptions{});
  Workload w = build_workload(std::move(one), zoo(), v100_p100(), WorkloadOptions{});
  CHECK(w.models[w.jobs[0].request.model] == "resnet50");
  CHECK(w.jobs[0].iterations == 1000);
}

TEST_CASE("gavel: bad lines name the file, line and field", "[formats][gavel][errors]") {
  ScratchDir dir;
  auto error = [&](const std::string& content) {
    std::string f = dir.write("bad.trace", content);
    std::string m = message_of([&] { read_gavel_trace(f, ReadOptions{}); });
    REQUIRE(m.rfind(f + ":", 0) == 0);
    return m.substr(f.size());
  };
  CHECK(error("a\tb\tc\t1\t2\t3\t4\t5\t6\n") ==
        ":1: row: expected 7 (Gavel's msr traces), 10 (Gavel) or 12 (Shockwave) tab-separated "
        "fields, got 9");
  CHECK(error(std::string(kLine10) + kLine7) ==
        ":2: row: expected 10 tab-separated fields as on line 1 (Gavel), got 7");
  CHECK(error("A3C\tcmd\t-step\t1\t100\t0\t-2\n") ==
        ":1: scale_factor (field 7): expected 1 to 100000 GPUs, got -2");
  CHECK(error("A3C\tcmd\t-step\t1\tmany\t0\t1\n") ==
        ":1: total_steps (field 5): expected an integer, got 'many'");
  CHECK(error("A3C\tcmd\t-step\t1\t0\t0\t1\n") ==
        ":1: total_steps (field 5): expected the total steps (at least 1), got 0");
  CHECK(error("A3C\tcmd\t-step\t2\t10\t0\t1\n") ==
        ":1: needs_data_dir (field 4): expected 0 or 1, got '2'");
  CHECK(error("A3C\tcmd\t-step\t1\t10\t-5\t1\n") ==
        ":1: arrival_time (field 6): expected a time from 0 to 1e+09 s, got -5");
  CHECK(error("ResNet-50 (batch 32)\tcmd\t-step\t1\t10\t0\t1\n") ==
        ":1: job_type (field 1): expected a job type 'Model' or 'Model (batch size N)', got "
        "'ResNet-50 (batch 32)'");
  CHECK(error("LM (batch size 10)\tc\td\t--steps\t1\t10\t1\tadaptive\t1\t-1\t5\t0\n") ==
        ":1: mode (field 8): expected static, gns or accordion, got 'adaptive'");
  CHECK(error("LM (batch size 10)\tc\td\t--steps\t1\t10\t1\tstatic\t1\t-1\t-3\t0\n") ==
        ":1: duration (field 11): expected a run time from 0 to 1e+09 s, got -3");
  CHECK(error("LM (batch size 10)\tc\td\t--steps\t1\t10\t1\t0\t-1\t0\n") ==
        ":1: priority_weight (field 8): expected a priority weight > 0");
  CHECK(error("\n \n") == ": empty trace: no job lines");
  // With --skip-bad-jobs a bad line is counted and the ids of the others stay Gavel's.
  ReadOptions skip;
  skip.skip_bad_jobs = true;
  std::string f = dir.write("skip.trace", std::string("A3C\tcmd\t-step\t1\tx\t0\t1\n") + kLine7);
  Trace t = read_gavel_trace(f, skip);
  CHECK(t.skipped == 1);
  REQUIRE(t.jobs.size() == 1);
  CHECK(t.name(t.jobs[0]) == "1");
}

TEST_CASE("gavel: a trace with a 12-field job runs its recorded V100 time end to end",
          "[formats][gavel]") {
  ScratchDir dir;
  std::string trace = dir.write("s.trace", kLine12);
  std::string cluster = dir.write("c.yaml", "nodes:\n  - count: 1\n    devices: {V100: 4}\n");
  auto r = run_dlsim("run -q --trace " + trace +
                         " --format gavel --set "
                         "models=configs/models/gavel.yaml --cluster " +
                         cluster + " --policy fifo --out " + dir.file("out"),
                     dir);
  REQUIRE(r.code == 0);
  // jobs.csv: id,submit_s,first_start_s,finish_s,jct_s,... ; job 0 starts at 0 and runs 1,418 s.
  std::istringstream jobs(read_file(dir.file("out/jobs.csv")));
  std::string line;
  std::getline(jobs, line);
  std::getline(jobs, line);
  CHECK(line.rfind("0,0,0,1418,1418,", 0) == 0);
}

TEST_CASE("gavel: the published Gavel and Shockwave traces read whole", "[formats][gavel][real]") {
  DLSIM_SKIP_UNLESS(std::filesystem::is_directory(kShared),
                    kShared << " is absent (the real public traces live outside the clone)",
                    "DLSIM_REQUIRE_SHARED_TRACES");
  // 64 nodes x 8 V100: room for the msr traces' largest job (64 GPUs).
  Cluster big = cluster_from_yaml("nodes:\n  - count: 64\n    devices: {V100: 8}\n");
  std::size_t files = 0;
  for (const char* dir : {"/gavel/msr-seed0", "/gavel/physical_cluster", "/shockwave"}) {
    for (const auto& e : std::filesystem::directory_iterator(kShared + dir)) {
      if (e.path().extension() != ".trace") continue;
      ++files;
      std::size_t lines = 0;
      std::istringstream in(read_file(e.path().string()));
      for (std::string l; std::getline(in, l);)
        lines += l.empty() ? 0 : 1;
      Trace t = read_gavel_trace(e.path().string(), ReadOptions{});
      CHECK(t.jobs.size() == lines);
      Workload w = build_workload(std::move(t), gavel_zoo(), big, WorkloadOptions{});
      CHECK(w.jobs.size() == lines);
    }
  }
  CHECK(files == 15 + 8 + 4);
}

TEST_CASE("gavel: --format auto knows each form by its first line", "[formats][gavel]") {
  ScratchDir dir;
  CHECK(guess_trace_format(dir.write("a.trace", kLine7)).format == "gavel");
  CHECK(guess_trace_format(dir.write("b.trace", kLine10)).format == "gavel");
  CHECK(guess_trace_format(dir.write("c.trace", kLine12)).format == "gavel");
  // Seven tab-separated fields whose first is no job type: no format matches.
  std::string other = dir.write("d.trace", "1\t2\t3\t4\t5\t6\t7\n");
  CHECK_THAT(message_of([&] { guess_trace_format(other); }),
             Catch::Contains("the header matches no trace format") &&
                 Catch::Contains("gavel has 7, 10 or 12 tab-separated fields"));
}
