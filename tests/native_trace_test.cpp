// The native trace reader and the resolution of a trace into a workload: one test per error
// class, each checking that the message names the file, line and column.
#include "sim/engine/error.h"
#include "sim/runtime/sim_state.h"
#include "tests/support/harness.h"
#include "workloads/build_workload.h"
#include "workloads/formats/native.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace {

constexpr const char* kFourV100 = "nodes:\n  - count: 1\n    devices: {V100: 4}\n";

std::string read_error(const std::string& csv) {
  try {
    trace_from_csv(csv);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string build_error(const std::string& csv) {
  try {
    workload_from_csv(cluster_from_yaml(kFourV100), csv);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("a native trace reads into jobs with defaults", "[trace]") {
  Trace t =
      trace_from_csv("id,submit_s,workers,gpus_per_worker,duration_s,model,user,queue,priority\n"
                     "a,0,2,2,100,resnet50,alice,prod,3\n"
                     "b,5.5,1,,20,,bob,,\n");
  REQUIRE(t.jobs.size() == 2);
  CHECK(t.jobs[0].workers == 2);
  CHECK(t.jobs[0].devices_per_worker == 2);
  CHECK(t.models.at(t.jobs[0].model) == "resnet50");
  CHECK(t.users.at(t.jobs[0].user) == "alice");
  CHECK(t.jobs[0].priority == 3);
  CHECK(t.jobs[1].submit_s == 5.5);
  CHECK(t.jobs[1].devices_per_worker == 1); // default
  CHECK(t.jobs[1].model == kNoString);
  CHECK(t.warnings.empty());
}

TEST_CASE("unknown columns are ignored with one warning", "[trace]") {
  Trace t = trace_from_csv(
      "id,submit_s,workers,duration_s,colour,size\nx,0,1,10,red,3\ny,1,1,10,blue,4\n");
  REQUIRE(t.warnings.size() == 1);
  CHECK_THAT(t.warnings[0], Catch::Contains("ignoring unknown columns: colour, size"));
  CHECK(t.jobs.size() == 2);
}

TEST_CASE("trace errors name file, line and column", "[trace][errors]") {
  // Missing required column.
  CHECK_THAT(read_error("id,submit_s,duration_s\na,0,10\n"),
             Catch::Matches(".*trace.csv:1: workers: required column missing.*"));
  // No duration and no iterations column.
  CHECK_THAT(read_error("id,submit_s,workers\na,0,1\n"),
             Catch::Contains("the header needs duration_s or iterations"));
  // Bad number.
  CHECK_THAT(read_error("id,submit_s,workers,duration_s\na,0,1,10\nb,zero,1,10\n"),
             Catch::Matches(".*trace.csv:3: submit_s: expected a number, got 'zero'"));
  // Negative value.
  CHECK_THAT(read_error("id,submit_s,workers,duration_s\na,-4,1,10\n"),
             Catch::Matches(".*trace.csv:2: submit_s: must not be negative, got -4"));
  CHECK_THAT(read_error("id,submit_s,workers,duration_s\na,0,0,10\n"),
             Catch::Matches(".*trace.csv:2: workers: must be at least 1, got 0"));
  CHECK_THAT(read_error("id,submit_s,workers,duration_s\na,0,1,-10\n"),
             Catch::Matches(".*trace.csv:2: duration_s: must be positive, got -10"));
  // Values beyond any real trace would overflow SimTime (int64 microseconds): bounded at 1e9 s
  // (trace_limits.h), like the other readers.
  CHECK_THAT(read_error("id,submit_s,workers,duration_s\na,0,1,1e300\n"),
             Catch::Contains("trace.csv:2: duration_s: must be at most 1e+09 s, got 1e+300"));
  CHECK_THAT(read_error("id,submit_s,workers,duration_s\na,2e9,1,10\n"),
             Catch::Contains("trace.csv:2: submit_s: must be at most 1e+09 s"));
  CHECK_THAT(read_error("id,submit_s,workers,gpus_per_worker,duration_s\na,0,1000,1000,10\n"),
             Catch::Contains(
                 "trace.csv:2: workers: 1000 workers x 1000 devices is more than 100000 devices"));
  CHECK_THAT(read_error("id,submit_s,workers,iterations,model\na,0,1,1e11,resnet50\n"),
             Catch::Contains("trace.csv:2: iterations: must be at most 1e+10"));
  // Not an integer.
  CHECK_THAT(read_error("id,submit_s,workers,duration_s\na,0,1.5,10\n"),
             Catch::Matches(".*trace.csv:2: workers: expected an integer, got '1.5'"));
  // Duplicate id; it is the error reported when submit_s or workers are bad too.
  CHECK_THAT(read_error("id,submit_s,workers,duration_s\na,0,1,10\na,1,1,10\n"),
             Catch::Matches(".*trace.csv:3: id: duplicate job id 'a'"));
  CHECK_THAT(read_error("id,submit_s,workers,duration_s\na,0,1,10\na,x,0,10\n"),
             Catch::Matches(".*trace.csv:3: id: duplicate job id 'a'"));
  // Neither duration nor iterations in a row; both; iterations without a model.
  CHECK_THAT(read_error("id,submit_s,workers,duration_s,iterations\na,0,1,,\n"),
             Catch::Matches(".*trace.csv:2: duration_s: the job needs duration_s or iterations"));
  CHECK_THAT(read_error("id,submit_s,workers,duration_s,iterations\na,0,1,5,5\n"),
             Catch::Contains("give duration_s or iterations, not both"));
  CHECK_THAT(read_error("id,submit_s,workers,iterations\na,0,1,500\n"),
             Catch::Contains("a job given by iterations needs a model"));
  // Elastic range.
  CHECK_THAT(
      read_error("id,submit_s,workers,duration_s,min_workers\na,0,2,5,3\n"),
      Catch::Matches(".*trace.csv:2: min_workers: must be between 1 and workers \\(2\\), got 3"));
  // Too few columns in a row: the row loop's message (csv_row_loop.h), with the line.
  CHECK_THAT(read_error("id,submit_s,workers,duration_s\na,0,1\n"),
             Catch::Contains("trace.csv:2: expected 4 comma-separated fields as in the header, "
                             "got fewer"));
  // Empty file, header only.
  CHECK_THAT(read_error(""), Catch::Contains("empty file"));
  CHECK_THAT(read_error("id,submit_s,workers,duration_s\n"),
             Catch::Contains("the trace has no jobs"));
}

TEST_CASE("jobs that could never fit, unknown models and device types are errors",
          "[trace][errors]") {
  CHECK_THAT(build_error("id,submit_s,workers,gpus_per_worker,duration_s\nbig,0,2,4,10\n"),
             Catch::Matches(".*trace.csv:2: workers: job 'big': 2 workers of 4 device\\(s\\) each "
                            "cannot fit: the cluster holds at most 1 such workers at once"));
  CHECK_THAT(build_error("id,submit_s,workers,gpus_per_worker,duration_s\nwide,0,1,8,10\n"),
             Catch::Contains("job 'wide': 1 workers of 8 device(s) each cannot fit"));
  CHECK_THAT(build_error("id,submit_s,workers,duration_s,cpus_per_worker\nhungry,0,1,10,64\n"),
             Catch::Contains("job 'hungry'"));
  CHECK_THAT(build_error("id,submit_s,workers,duration_s,model\nm,0,1,10,alexnet\n"),
             Catch::Matches(".*trace.csv:2: model: job 'm': unknown model 'alexnet'.*"));
  CHECK_THAT(build_error("id,submit_s,workers,duration_s,device_type\nd,0,1,10,TPUv4\n"),
             Catch::Matches(".*trace.csv:2: device_type: job 'd': unknown device type 'TPUv4'.*"));
  CHECK_THAT(build_error("id,submit_s,workers,duration_s,device_type\nd,0,1,10,K80\n"),
             Catch::Contains("job 'd'")); // a K80 job on an all-V100 cluster never runs
}

TEST_CASE("skip-bad-jobs: a row skipped for a bad field still holds its id", "[trace]") {
  // b's row is skipped for its submit_s; the later b repeats its id and is skipped as a
  // duplicate, and the later c's workers error is reported as it is (c is not a repeat).
  Trace t = trace_from_csv(
      "id,submit_s,workers,duration_s\na,0,1,10\nb,x,1,10\nb,2,1,10\nc,3,0,10\n", true);
  REQUIRE(t.jobs.size() == 1);
  CHECK(t.name(t.jobs[0]) == "a");
  CHECK(t.skipped == 3);
  REQUIRE(t.skip_reasons.size() == 3);
  CHECK_THAT(t.skip_reasons[0], Catch::Contains(":3: submit_s: expected a number, got 'x'"));
  CHECK_THAT(t.skip_reasons[1], Catch::Contains(":4: id: duplicate job id 'b'"));
  CHECK_THAT(t.skip_reasons[2], Catch::Contains(":5: workers: must be at least 1, got 0"));
}

TEST_CASE("a repeated id is found when a later row has an error too", "[trace]") {
  // The reader first only keeps every id's hash and compares them at the end (native.cpp); the
  // bad submit_s of line 4 stops that first read, but line 3's repeat of 'a' is the first
  // error of the file, and is the one reported.
  CHECK_THAT(read_error("id,submit_s,workers,duration_s\na,0,1,10\na,1,1,10\nb,x,1,10\n"),
             Catch::Matches(".*trace.csv:3: id: duplicate job id 'a'"));
  // Without a repeat, line 4's error is the file's.
  CHECK_THAT(read_error("id,submit_s,workers,duration_s\na,0,1,10\nc,1,1,10\nb,x,1,10\n"),
             Catch::Matches(".*trace.csv:4: submit_s: expected a number, got 'x'"));
}

TEST_CASE("skip-bad-jobs: nothing of a row with a repeated id is kept", "[trace]") {
  // Line 3 repeats 'a' with a user and a model that no other row has: skipped whole, so
  // neither is interned (users: "" and u1; models: none) and the later rows read as usual.
  Trace t = trace_from_csv("id,submit_s,workers,duration_s,user,model\n"
                           "a,0,1,10,u1,\n"
                           "a,1,1,10,u2,resnet50\n"
                           "b,2,1,10,u1,\n",
                           true);
  REQUIRE(t.jobs.size() == 2);
  CHECK(t.name(t.jobs[0]) == "a");
  CHECK(t.name(t.jobs[1]) == "b");
  CHECK(t.jobs[1].line == 4);
  CHECK(t.users.names() == std::vector<std::string>{"", "u1"});
  CHECK(t.models.names().empty());
  CHECK(t.skipped == 1);
  REQUIRE(t.skip_reasons.size() == 1);
  CHECK_THAT(t.skip_reasons[0], Catch::Contains(":3: id: duplicate job id 'a'"));
}

TEST_CASE("skip-bad-jobs skips and counts bad rows instead of failing", "[trace]") {
  Trace t = trace_from_csv(
      "id,submit_s,workers,duration_s\na,0,1,10\nb,x,1,10\nc,2,1,10\nd,3,1,-1\n", true);
  CHECK(t.jobs.size() == 2);
  CHECK(t.skipped == 2);
  REQUIRE(t.skip_reasons.size() == 2);
  CHECK_THAT(t.skip_reasons[0], Catch::Contains(":3: submit_s"));
  // And at resolution: a job too big for the cluster is skipped and counted too.
  Cluster c = cluster_from_yaml(kFourV100);
  Trace t2 = trace_from_csv("id,submit_s,workers,duration_s\nok,0,1,10\nbig,0,9,10\n", true);
  WorkloadOptions o;
  o.skip_bad_jobs = true;
  Workload w = build_workload(std::move(t2), zoo(), c, o);
  CHECK(w.jobs.size() == 1);
  CHECK(w.skipped_bad_jobs == 1);
}

TEST_CASE("resolution: jobs sorted by submit, work in iterations of the reference device",
          "[trace]") {
  Cluster c = cluster_from_yaml(kFourV100);
  Workload w = workload_from_csv(
      c, "id,submit_s,workers,duration_s,model\nlate,50,1,100,\nearly,10,1,200,resnet50\n");
  REQUIRE(w.jobs.size() == 2);
  CHECK(w.job_names[0] == "early");
  CHECK(w.jobs[0].request.submit == 10'000'000);
  // No model: one iteration is one second on the reference device (V100).
  CHECK(w.jobs[1].iterations == Approx(100));
  // resnet50: 200 s / (its V100 seconds per iteration from the zoo).
  double v100 = zoo().models[*zoo().find("resnet50")].iteration_time_s.at("V100");
  CHECK(w.jobs[0].iterations == Approx(200 / v100));
  // Utilization: the zoo's for resnet50, the runtime default (0.52) for no model.
  CHECK(w.solo_util_of(w.jobs[0].request) == zoo().models[*zoo().find("resnet50")].gpu_util);
  CHECK(w.solo_util_of(w.jobs[1].request) == 0.52);
}

TEST_CASE("request details: each job reads back its own, equal ones are kept once", "[trace]") {
  // A job's cores, memory, device memory, estimate and shares live in Workload::details, and
  // its utilization alone in Workload::solo_util by the same index, once per distinct value
  // (workload.h RequestDetails). a and c give none:
  // the defaults, with the runtime's default utilization 0.52 for a job without a model (not
  // RequestDetails{}'s 0, so not entry 0). b and d give all seven, the same. Entries: [0] the
  // defaults, [1] a's and c's, [2] b's and d's.
  Cluster c = cluster_from_yaml(kFourV100);
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,cpus_per_worker,"
                                    "mem_gb_per_worker,gpu_util,requested_s,gpu_share_min,"
                                    "gpu_share_max,gpu_mem_gb\n"
                                    "a,0,1,10,,,,,,,\n"
                                    "b,1,1,10,2,8,0.3,600,0.5,0.75,4\n"
                                    "c,2,1,10,,,,,,,\n"
                                    "d,3,1,10,2,8,0.3,600,0.5,0.75,4\n");
  REQUIRE(w.jobs.size() == 4);
  const RequestDetails& a = w.details_of(w.jobs[0].request);
  CHECK(a.cpus_per_worker == 0);
  CHECK(a.mem_gb_per_worker == 0);
  CHECK(w.solo_util_of(w.jobs[0].request) == 0.52);
  CHECK(a.gpu_mem_gb == 0);
  CHECK(a.requested_time_s == 0);
  CHECK(a.gpu_share_min == 1);
  CHECK(a.gpu_share_max == 1);
  const RequestDetails& b = w.details_of(w.jobs[1].request);
  CHECK(b.cpus_per_worker == 2);
  CHECK(b.mem_gb_per_worker == 8);
  CHECK(w.solo_util_of(w.jobs[1].request) == 0.3);
  CHECK(b.gpu_mem_gb == 4);
  CHECK(b.requested_time_s == 600);
  CHECK(b.gpu_share_min == 0.5);
  CHECK(b.gpu_share_max == 0.75);
  CHECK(w.details.size() == 3);
  CHECK(w.solo_util.size() == 3);
  CHECK(w.solo_util[0] == 0);
  CHECK(w.jobs[0].request.details == 1);
  CHECK(w.jobs[1].request.details == 2);
  CHECK(w.jobs[2].request.details == 1);
  CHECK(w.jobs[3].request.details == 2);
  // The runtime reads them through its view: b's shares, as the share controller would.
  SimState s;
  s.cluster = &c;
  s.workload = &w;
  s.jobs.resize(4);
  CHECK(s.share_min(1) == 0.5);
  CHECK(s.share_max(1) == 0.75);
  CHECK(s.worker_cores(1) == 2);
  CHECK(s.share_min(2) == 1);
  CHECK(s.worker_cores(2) == 0);
}
