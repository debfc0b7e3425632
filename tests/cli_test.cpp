// The dlsim command end to end: exit codes, result files, determinism, validate and gen-trace.
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>

using namespace dlsim::test;

TEST_CASE("dlsim run writes every result file and a short summary", "[cli]") {
  ScratchDir dir;
  Outcome r = run_dlsim("run --out " + dir.file("res"), dir);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("jobs       500 (500 finished"));
  CHECK_THAT(r.out, Catch::Contains("results in " + dir.file("res")));
  for (const char* f : {"jobs.csv", "summary.json", "timeseries.csv", "run.yaml"}) {
    CHECK(std::filesystem::exists(dir.file(std::string("res/") + f)));
  }
  std::string summary = read_file(dir.file("res/summary.json"));
  for (const char* key :
       {"\"jobs\"", "\"finished\"", "\"failed\"", "\"makespan_s\"", "\"jct_mean_s\"",
        "\"jct_median_s\"", "\"jct_p95_s\"", "\"jct_p99_s\"", "\"queue_mean_s\"",
        "\"gpu_util_alloc\"", "\"gpu_util_effective\"", "\"preemptions\"", "\"migrations\"",
        "\"events\"", "\"seed\"", "\"policy\""}) {
    CHECK_THAT(summary, Catch::Contains(key));
  }
  // No temporary files are left behind.
  for (const auto& entry : std::filesystem::directory_iterator(dir.file("res"))) {
    CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
  }
  // Numbers are written as a person would (0.52, not yaml-cpp's 0.52000000000000002) and read
  // back as the same doubles.
  std::string run_yaml = read_file(dir.file("res/run.yaml"));
  CHECK_THAT(run_yaml, Catch::Contains("default_gpu_util: 0.52\n"));
  CHECK_THAT(run_yaml, !Catch::Contains("00000000"));
  // run.yaml reproduces the run: running it gives the same summary.
  Outcome again =
      run_dlsim("run -e " + dir.file("res/run.yaml") + " --out " + dir.file("res2"), dir);
  REQUIRE(again.code == 0);
  CHECK(read_file(dir.file("res2/summary.json")) == summary);
}

TEST_CASE("two runs with the same inputs and seed are byte-identical", "[cli][determinism]") {
  ScratchDir dir;
  for (const char* policy : {"fifo", "srtf"}) {
    std::string p(policy);
    REQUIRE(run_dlsim("run -q --policy " + p + " --out " + dir.file(p + "1"), dir).code == 0);
    REQUIRE(run_dlsim("run -q --policy " + p + " --out " + dir.file(p + "2"), dir).code == 0);
    for (const char* f : {"/jobs.csv", "/summary.json", "/timeseries.csv", "/run.yaml",
                          "/events.csv", "/timeline.json"}) {
      CHECK(read_file(dir.file(p + "1") + f) == read_file(dir.file(p + "2") + f));
    }
  }
}

TEST_CASE("the seed changes the generator's output and nothing else", "[cli][determinism]") {
  ScratchDir dir;
  REQUIRE(run_dlsim("gen-trace --jobs 300 --seed 1 --out " + dir.file("t1.csv"), dir).code == 0);
  REQUIRE(run_dlsim("gen-trace --jobs 300 --seed 1 --out " + dir.file("t1b.csv"), dir).code == 0);
  REQUIRE(run_dlsim("gen-trace --jobs 300 --seed 2 --out " + dir.file("t2.csv"), dir).code == 0);
  CHECK(read_file(dir.file("t1.csv")) == read_file(dir.file("t1b.csv")));
  CHECK(read_file(dir.file("t1.csv")) != read_file(dir.file("t2.csv")));
  // The same trace under two seeds: the schedule is the same; only the summary's seed differs.
  std::string trace = " --trace " + dir.file("t1.csv");
  REQUIRE(run_dlsim("run -q --seed 1" + trace + " --out " + dir.file("s1"), dir).code == 0);
  REQUIRE(run_dlsim("run -q --seed 2" + trace + " --out " + dir.file("s2"), dir).code == 0);
  CHECK(read_file(dir.file("s1/jobs.csv")) == read_file(dir.file("s2/jobs.csv")));
  std::string a = read_file(dir.file("s1/summary.json"));
  std::string b = read_file(dir.file("s2/summary.json"));
  CHECK(a != b);
  a.replace(a.find("\"seed\": 1"), 9, "\"seed\": 2");
  CHECK(a == b);
}

TEST_CASE("validate prints what it read", "[cli]") {
  ScratchDir dir;
  Outcome r = run_dlsim("validate", dir);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("jobs: 500\n"));
  CHECK_THAT(r.out, Catch::Contains("nodes: 4\n"));
  CHECK_THAT(r.out, Catch::Contains("gpus: 32\n"));
  // The sample trace has 8-GPU jobs (1 worker x 8) that a 2 x 4-GPU cluster cannot hold.
  Outcome tiny = run_dlsim("validate --cluster configs/clusters/tiny.yaml", dir);
  CHECK(tiny.code == 1);
  CHECK_THAT(tiny.err, Catch::Contains("1 workers of 8 device(s) each cannot fit"));
  Outcome d =
      run_dlsim("validate --cluster configs/clusters/tiny.yaml --skip-bad-jobs --devices", dir);
  CHECK_THAT(d.out, Catch::Contains("nodes: 2\n"));
  CHECK_THAT(d.out, Catch::Contains("gpus: 8\n"));
  CHECK_THAT(d.out, Catch::Contains("device,type,node,rack\n0,V100,0,0\n"));
  CHECK_THAT(d.out, Catch::Contains("7,V100,1,0\n"));
}

TEST_CASE("exit codes: 1 for bad input, 2 for bad usage", "[cli][errors]") {
  ScratchDir dir;
  Outcome bad_trace = run_dlsim(
      "run --trace " + dir.write("bad.csv", "id,submit_s,workers,duration_s\na,0,1,x\n"), dir);
  CHECK(bad_trace.code == 1);
  CHECK_THAT(bad_trace.err, Catch::Contains("bad.csv:2: duration_s: expected a number, got 'x'"));
  Outcome bad_flag = run_dlsim("run --no-such-flag", dir);
  CHECK(bad_flag.code == 2);
  CHECK(run_dlsim("frobnicate", dir).code == 2);
  CHECK(run_dlsim("run --set nokeyvalue", dir).code == 2);
  Outcome bad_policy = run_dlsim("run --policy lottery", dir);
  CHECK(bad_policy.code == 1);
  CHECK_THAT(bad_policy.err, Catch::Contains("unknown policy 'lottery'"));
  // A failed run writes no result directory.
  CHECK_FALSE(std::filesystem::exists(dir.file("never")));
  CHECK(run_dlsim("run --policy lottery --out " + dir.file("never"), dir).code == 1);
  CHECK_FALSE(std::filesystem::exists(dir.file("never")));
}

TEST_CASE("list shows policies, formats, devices and models", "[cli]") {
  ScratchDir dir;
  Outcome p = run_dlsim("list policies", dir);
  CHECK(p.code == 0);
  CHECK_THAT(p.out,
             Catch::Contains("fifo") && Catch::Contains("srtf") && Catch::Contains("[oracle]"));
  CHECK_THAT(run_dlsim("list devices", dir).out,
             Catch::Contains("XeonPhi") && Catch::Contains("FPGA"));
  CHECK_THAT(run_dlsim("list models", dir).out,
             Catch::Contains("resnet50") && Catch::Contains("deepspeech2"));
  CHECK_THAT(run_dlsim("list formats", dir).out, Catch::Contains("native"));
  CHECK(run_dlsim("list nothing", dir).code == 2);
}

TEST_CASE("until stops the run and reports unfinished jobs", "[cli]") {
  ScratchDir dir;
  Outcome r = run_dlsim("run --until 3600 --out " + dir.file("u"), dir);
  REQUIRE(r.code == 0);
  std::string s = read_file(dir.file("u/summary.json"));
  CHECK_THAT(s, Catch::Contains("\"makespan_s\": 3600.0"));
  CHECK_THAT(s, !Catch::Contains("\"unfinished\": 0,"));
}

TEST_CASE("run -q prints nothing on success", "[cli]") {
  ScratchDir dir;
  Outcome r = run_dlsim("run -q --out " + dir.file("res"), dir);
  REQUIRE(r.code == 0);
  CHECK(r.out.empty());
  CHECK(r.err.empty());
  // Without -q the wall-clock line goes to stderr.
  Outcome loud = run_dlsim("run --out " + dir.file("res2"), dir);
  CHECK_THAT(loud.err, Catch::Contains(" events in "));
}

TEST_CASE("skip-bad-jobs prints the first reasons of jobs skipped after reading too",
          "[cli][trace]") {
  ScratchDir dir;
  // b asks for 64 GPUs of small.yaml's 32; c names a model the zoo lacks. Both pass the reader
  // and are dropped when the trace meets the cluster and the zoo.
  std::string trace = dir.write("t.csv", "id,submit_s,workers,duration_s,model\na,0,1,10,resnet50\n"
                                         "b,0,64,10,\nc,0,1,10,alexnet\n");
  Outcome r = run_dlsim(
      "validate --cluster configs/clusters/small.yaml --skip-bad-jobs --trace " + trace, dir);
  REQUIRE(r.code == 0);
  CHECK_THAT(
      r.err,
      Catch::Contains(
          "warning: skipped 2 jobs that cannot run here (--skip-bad-jobs); the first 2:\n  " +
          trace + ":3: workers: job 'b': 64 workers"));
  CHECK_THAT(r.err, Catch::Contains(trace + ":4: model: job 'c': unknown model 'alexnet'"));
  CHECK_THAT(r.out, Catch::Contains("\njobs: 1\n"));
  CHECK_THAT(r.out, Catch::Contains("\nskipped_bad_jobs: 2\n"));
}

TEST_CASE("a row error says which header columns were ignored", "[cli][trace][errors]") {
  ScratchDir dir;
  // `duration` is not a column name (`duration_s` is): the header error names the likely cause.
  std::string trace = dir.write("t.csv", "id,submit_s,workers,duration\na,0,1,10\n");
  Outcome r = run_dlsim("validate --trace " + trace, dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err,
             Catch::Contains(trace + ":1: duration_s: the header needs duration_s or iterations "
                                     "(note: unknown columns ignored: duration)"));
  std::string bad_row = dir.write("u.csv", "id,submit_s,workers,duration_s,gpus\na,0,x,10,2\n");
  Outcome row = run_dlsim("validate --trace " + bad_row, dir);
  CHECK(row.code == 1);
  CHECK_THAT(
      row.err,
      Catch::Contains(
          bad_row +
          ":2: workers: expected an integer, got 'x' (note: unknown columns ignored: gpus)"));
}

TEST_CASE("a job too big for the cluster names the cluster and how to choose another",
          "[cli][errors]") {
  ScratchDir dir;
  std::string trace = dir.write("t.csv", "id,submit_s,workers,duration_s\nbig,0,64,10\n");
  // No experiment and no --cluster: the default experiment's small.yaml (4 x 8 V100).
  Outcome r = run_dlsim("validate --trace " + trace, dir);
  CHECK(r.code == 1);
  CHECK_THAT(
      r.err,
      Catch::Contains(trace + ":2: workers: job 'big': 64 workers of 1 device(s) each cannot fit"));
  CHECK_THAT(
      r.err,
      Catch::Contains(
          "(the cluster is configs/clusters/small.yaml, 32 GPUs; choose another with --cluster"));
}

TEST_CASE("a real trace read in the wrong format gets a hint naming the right one",
          "[cli][errors]") {
  ScratchDir dir;
  // The bundled Tiresias trace, read as native (the default format).
  Outcome r = run_dlsim("validate --trace traces/tiresias_60_job.csv", dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("traces/tiresias_60_job.csv:1: id: required column missing"));
  CHECK_THAT(r.err,
             Catch::Contains("(the file looks like a tiresias trace from the header (job_id, "
                             "num_gpu, submit_time, duration): give --format tiresias or "
                             "--format auto)"));
  // A header that matches no format gets no hint.
  std::string odd = dir.write("odd.csv", "foo,bar\n1,2\n");
  Outcome plain = run_dlsim("validate --trace " + odd, dir);
  CHECK(plain.code == 1);
  CHECK_THAT(plain.err, !Catch::Contains("looks like"));
}
