// Gavel's and Shockwave's throughput files (trace.throughputs): read, turned into one model per
// (job type, scale factor), jobs run at those throughputs (worked out by hand), and bad files.
#include "tests/support/harness.h"

#include "sim/engine/error.h"
#include "workloads/build_workload.h"
#include "workloads/formats/gavel.h"
#include "workloads/measured_throughputs.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <functional>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// ResNet-18 at batch 16: 10 steps/s alone on a V100 with 1 GPU, 16 with 2 (the steps of both
// workers), 2 on a K80 with 1 GPU and none measured with 2; one co-located pair; an
// unconsolidated type that must not be used.
constexpr const char* kFile =
    "{\"v100\": {\"('ResNet-18 (batch size 16)', 1)\": {\"null\": 10.0, "
    "\"('ResNet-18 (batch size 16)', 1)\": [6.0, 6.0]}, "
    "\"('ResNet-18 (batch size 16)', 2)\": {\"null\": 16.0}}, "
    "\"k80\": {\"('ResNet-18 (batch size 16)', 1)\": {\"null\": 2.0}}, "
    "\"v100_unconsolidated\": {\"('ResNet-18 (batch size 16)', 1)\": {\"null\": 99.0}}}";

// Shockwave's 12-field lines: 1,000 steps on 1 GPU, and 800 steps on 2 GPUs, both submitted at
// 0, with recorded durations (77 s and 9 s) that are not what the file measures: the steps must
// run at the file's throughputs.
constexpr const char* kTrace =
    "ResNet-18 (batch size 16)\tpython3 main.py\tcifar10\t--num_steps\t1\t1000\t1\tstatic\t1\t"
    "-1.000000\t77\t0\n"
    "ResNet-18 (batch size 16)\tpython3 main.py\tcifar10\t--num_steps\t1\t800\t2\tstatic\t1\t"
    "-1.000000\t9\t0\n";

Cluster v100_k80() {
  return cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 4}}\n"
                           "  - {count: 1, devices: {K80: 4}}\n");
}

} // namespace

TEST_CASE("throughputs file: entries by model and scale factor", "[throughputs]") {
  ScratchDir dir;
  MeasuredThroughputs m = read_measured_throughputs(dir.write("t.json", kFile));
  REQUIRE(m.entries.size() == 2);
  const auto& one = m.entries.at({"gavel_resnet18_bs16", 1});
  CHECK(one.job_type == "ResNet-18 (batch size 16)");
  CHECK(one.alone.at("v100") == 10.0);
  CHECK(one.alone.at("k80") == 2.0);
  CHECK(one.alone.size() == 2); // v100_unconsolidated is not used
  const auto& two = m.entries.at({"gavel_resnet18_bs16", 2});
  CHECK(two.alone.at("v100") == 16.0);
  CHECK(two.alone.count("k80") == 0);
  CHECK(m.pairs == 1);
}

TEST_CASE("throughputs file: jobs run their steps at the measured throughputs", "[throughputs]") {
  ScratchDir dir;
  MeasuredThroughputs m = read_measured_throughputs(dir.write("t.json", kFile));
  Trace trace = read_gavel_trace(dir.write("t.trace", kTrace), ReadOptions{});
  ModelZoo zoo = load_model_zoo(DLSIM_SOURCE_DIR_FOR_TESTS "/configs/models/gavel.yaml");
  const Cluster c = v100_k80();
  apply_measured_throughputs(trace, zoo, m, c.types);
  CHECK(trace.models.at(trace.jobs[0].model) == "gavel_resnet18_bs16@1");
  CHECK(trace.models.at(trace.jobs[1].model) == "gavel_resnet18_bs16@2");
  Workload w = build_workload(std::move(trace), zoo, c, WorkloadOptions{});
  const auto v100 = *find_device_type(c.types, "V100");
  const auto k80 = *find_device_type(c.types, "K80");
  const JobSpec& a = w.jobs[job_named(w, "0")];
  const JobSpec& b = w.jobs[job_named(w, "1")];
  // Job 0: 1,000 iterations of 1 / 10 s on a V100, 1 / 2 s on a K80.
  CHECK(a.iterations == 1000);
  CHECK(w.perf.iter_time(a.request.model, v100) == Approx(0.1));
  CHECK(w.perf.iter_time(a.request.model, k80) == Approx(0.5));
  // Job 1: 800 steps over 2 workers = 400 iterations of the 2-worker request, each 2 steps at
  // 16 steps/s = 0.125 s; not measured on K80s, so it cannot run there.
  CHECK(b.iterations == 400);
  CHECK(w.perf.iter_time(b.request.model, v100) == Approx(0.125));
  CHECK_FALSE(w.perf.supports(b.request.model, k80));
  // The measurement includes communication: none is modelled on top.
  CHECK(w.perf.traffic[b.request.model].model_bytes == 0);
  // Gavel's zoo gives the facts the file lacks (gavel.yaml: 2 GB, utilization 0.8).
  CHECK(w.model_features[a.request.model].gpu_mem_gb == 2.0);

  // FIFO on the V100 node (start cost 0): job 0 runs 1,000 x 0.1 = 100 s, job 1 400 x 0.125 =
  // 50 s (the V100s are the fastest free type for both).
  RunOutput out = run_policy("fifo", c, w);
  CHECK(to_seconds(out.state.jobs[job_named(w, "0")].end) == Approx(100));
  CHECK(to_seconds(out.state.jobs[job_named(w, "1")].end) == Approx(50));
}

TEST_CASE("throughputs file: without one a Shockwave job runs its recorded duration",
          "[throughputs]") {
  ScratchDir dir;
  Trace trace = read_gavel_trace(dir.write("t.trace", kTrace), ReadOptions{});
  ModelZoo zoo = load_model_zoo(DLSIM_SOURCE_DIR_FOR_TESTS "/configs/models/gavel.yaml");
  const Cluster c = v100_k80();
  Workload w = build_workload(std::move(trace), zoo, c, WorkloadOptions{});
  const auto v100 = *find_device_type(c.types, "V100");
  const JobSpec& a = w.jobs[job_named(w, "0")];
  CHECK(a.iterations * w.perf.iter_time(a.request.model, v100) == Approx(77));
}

TEST_CASE("throughputs file: bad files and missing job types are named", "[throughputs]") {
  ScratchDir dir;
  auto read = [&](const std::string& text) {
    return message_of([&] { read_measured_throughputs(dir.write("bad.json", text)); });
  };
  const std::string f = dir.file("bad.json");
  CHECK_THAT(read("{\"v100\": {"), Catch::StartsWith(f + ": malformed JSON: "));
  // One LM entry whose "null" (or a pair) is the given JSON text.
  auto entry = [](const std::string& key, const std::string& value) {
    return "{\"v100\": {\"(" + key + ")\": " + value + "}}";
  };
  CHECK(read(entry("'LM (batch size 5)', 1", "{\"null\": -1.5}")) ==
        f + ": [\"v100\"][\"('LM (batch size 5)', 1)\"][\"null\"]: a throughput must be "
            "finite and >= 0, got -1.5");
  CHECK_THAT(read(entry("'LM (batch size 5)', 0", "{\"null\": 1}")),
             Catch::Contains("expected a key ('Job type', scale factor)"));
  CHECK_THAT(read(entry("'LM (batch size 5)', 1", "{\"x\": 1}")),
             Catch::Contains("missing \"null\""));
  CHECK_THAT(read(entry("'LM (batch size 5)', 1", "{\"null\": \"fast\"}")),
             Catch::Contains("expected a throughput (a number), got '\"fast\"'"));
  CHECK_THAT(
      read(entry("'LM (batch size 5)', 1", "{\"null\": 1, \"('LM (batch size 5)', 1)\": [1, -2]}")),
      Catch::Contains("[1]: a throughput must be finite and >= 0, got -2"));
  CHECK_THAT(read(entry("'LM (batch size 5)', 1", "{\"null\": 1e-12}")),
             Catch::Contains("a throughput must be 0 (cannot run) or at least 1e-09 steps/s, "
                             "got 1e-12"));
  CHECK(read("[]") == f + ": expected a JSON object of device types (\"v100\": {...})");

  // A trace job at a scale factor the file does not measure.
  MeasuredThroughputs m = read_measured_throughputs(dir.write("t.json", kFile));
  const std::string trace_file = dir.write(
      "four.trace", "ResNet-18 (batch size 16)\tpython3 main.py\tcifar10\t--num_steps\t1\t800\t4\t"
                    "static\t1\t-1.000000\t9\t0\n");
  Trace four = read_gavel_trace(trace_file, ReadOptions{});
  ModelZoo zoo;
  CHECK(message_of([&] { apply_measured_throughputs(four, zoo, m, v100_k80().types); }) ==
        dir.file("t.json") +
            ": no throughput for model 'gavel_resnet18_bs16' at scale factor 4 (the file "
            "measures it at other scale factors), which " +
            trace_file + ":1 (job '0') needs");
  Trace lm = read_gavel_trace(
      dir.write("lm.trace", "LM (batch size 5)\tpython3 main.py\tlm\t--steps\t1\t80\t1\t"
                            "static\t1\t-1.000000\t9\t0\n"),
      ReadOptions{});
  CHECK_THAT(message_of([&] { apply_measured_throughputs(lm, zoo, m, v100_k80().types); }),
             Catch::Contains("no throughput for model 'gavel_lm_bs5' at scale factor 1 (no job "
                             "type of the file is that model)"));
}

TEST_CASE("throughputs file: Shockwave's tacc_throughputs.json covers its 120-job trace",
          "[throughputs]") {
  const std::string shared = DLSIM_SOURCE_DIR_FOR_TESTS "/../shared/traces/shockwave/";
  const std::string trace_file =
      shared + "120_0.2_5_100_40_25_0,0.5,0.5_0.6,0.3,0.09,0.01_multigpu_dynamic.trace";
  if (!std::ifstream(trace_file)) {
    WARN("skipped: " + trace_file + " is absent");
    return;
  }
  MeasuredThroughputs m = read_measured_throughputs(shared + "tacc_throughputs.json");
  // 83 job types x scale factors on each of v100, p100 and k80 (the file's own count).
  CHECK(m.entries.size() == 83);
  Trace trace = read_gavel_trace(trace_file, ReadOptions{});
  ModelZoo zoo;
  const Cluster c = cluster_from_yaml("nodes:\n  - {count: 8, devices: {V100: 4}}\n");
  apply_measured_throughputs(trace, zoo, m, c.types);
  Workload w = build_workload(std::move(trace), zoo, c, WorkloadOptions{});
  // Line 1: LM (batch size 10), 134,583 steps on 1 GPU at the file's 94.91094148 steps/s on a
  // V100 = 1,417.992 s (Shockwave's trace records 1,418: the same, rounded).
  const JobSpec& j = w.jobs[job_named(w, "0")];
  const auto v100 = *find_device_type(c.types, "V100");
  CHECK(j.iterations * w.perf.iter_time(j.request.model, v100) == Approx(1417.992));
}
