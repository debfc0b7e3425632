// The philly, philly-csv, helios and tiresias readers, --format auto, trace selection
// (origin, window, VC, sample, drop-failed) and their errors. Real files come from
// ../shared/traces (skipped with a message when absent); the bundled samples are in traces/.
#include "tests/support/harness.h"
#include "tests/support/skip.h"

#include "sim/engine/error.h"
#include "workloads/build_workload.h"
#include "workloads/formats/datetime_field.h"
#include "workloads/formats/format_guess.h"
#include "workloads/formats/gpu_shape.h"
#include "workloads/formats/helios.h"
#include "workloads/formats/philly_csv.h"
#include "workloads/formats/philly_json.h"
#include "workloads/formats/registry.h"
#include "workloads/formats/tiresias.h"
#include "workloads/gen_trace.h"
#include "workloads/gen_trace_presets.h"
#include "workloads/trace_select.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <sys/wait.h>

using namespace dlsim;
using namespace dlsim::test;

namespace {

const std::string kShared = DLSIM_SOURCE_DIR_FOR_TESTS "/../shared/traces";
const std::string kBundled = DLSIM_SOURCE_DIR_FOR_TESTS "/traces";

bool have_shared() {
  return std::filesystem::is_directory(kShared);
}

// A skip ctest counts, or a failure in CI, which has the traces (tests/support/skip.h).
#define REQUIRE_SHARED_TRACES()                                                                    \
  DLSIM_SKIP_UNLESS(have_shared(),                                                                 \
                    kShared << " is absent (the real public traces live outside the clone)",       \
                    "DLSIM_REQUIRE_SHARED_TRACES")

// 8 nodes x 8 V100: room for the largest job of the bundled samples (32 GPUs).
Cluster eight_by_eight() {
  return cluster_from_yaml("nodes:\n  - count: 8\n    devices: {V100: 8}\n    cpu_cores: 128\n");
}

Workload resolve(Trace trace, const Cluster& cluster) {
  return build_workload(std::move(trace), zoo(), cluster, WorkloadOptions{});
}

const JobSpec& spec_named(const Workload& w, const std::string& name) {
  return w.jobs[job_named(w, name)];
}

ReadOptions skipping() {
  ReadOptions o;
  o.skip_bad_jobs = true;
  return o;
}

} // namespace

TEST_CASE("trace times: calendar strings to seconds since 1970 and back", "[formats][time]") {
  // 2017-10-01 = 17,440 days after 1970-01-01 (47 years of which 12 leap years:
  // 47 x 365 + 12 = 17,167 days to 2017-01-01, + 273 days of Jan-Sep 2017) = 1,506,816,000 s.
  CHECK(parse_datetime("2017-10-01 00:00:00") == 1506816000);
  CHECK(parse_datetime("2017-10-01T01:02:03") == 1506816000 + 3723);
  CHECK(parse_datetime("2016-02-29 00:00:00").has_value()); // leap year
  CHECK_FALSE(parse_datetime("2017-02-29 00:00:00").has_value());
  CHECK_FALSE(parse_datetime("2017-10-01 24:00:00").has_value());
  CHECK_FALSE(parse_datetime("2017-10-01").has_value());
  CHECK_FALSE(parse_datetime("None").has_value());
  CHECK(format_datetime(1506816000 + 3723) == "2017-10-01 01:02:03");
}

TEST_CASE("a trace's GPU count becomes workers x devices of at most 8 per worker", "[formats]") {
  auto shape = [](std::uint32_t g) {
    GpuShape s = shape_for_gpus(g);
    return std::pair{s.workers, s.devices_per_worker};
  };
  CHECK(shape(1) == std::pair{1u, 1u});
  CHECK(shape(8) == std::pair{1u, 8u});
  CHECK(shape(12) == std::pair{2u, 6u}); // largest divisor of 12 that is <= 8
  CHECK(shape(16) == std::pair{2u, 8u});
  CHECK(shape(24) == std::pair{3u, 8u});
  CHECK(shape(128) == std::pair{16u, 8u});
  CHECK(shape(11) == std::pair{11u, 1u}); // a prime above 8
}

TEST_CASE("philly-csv: the real Pollux Philly file imports all 82,247 jobs",
          "[formats][philly-csv][real]") {
  REQUIRE_SHARED_TRACES();
  std::string file = kShared + "/philly-derived/pollux_philly.csv";
  Trace t = read_philly_csv_trace(file, ReadOptions{});
  // Hand count: `grep -c . pollux_philly.csv` = 82,248 non-empty lines (the file ends with one
  // empty line), minus the header = 82,247 rows, none with a zero duration.
  CHECK(t.jobs.size() == 82247);
  CHECK(t.warnings.empty());
  SelectionReport r = select_trace(t, TraceSelection{}, 1);
  // Time zero is the first submit: line 31568, 2017-09-04 10:30:41.
  CHECK(r.origin_s == *parse_datetime("2017-09-04 10:30:41"));
  Cluster philly =
      cluster_from_yaml(read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/configs/clusters/philly.yaml"));
  Workload w = resolve(std::move(t), philly);
  REQUIRE(w.jobs.size() == 82247);

  // Line 2: "2017-10-09 07:01:55,66.0,1,66.0,11cb48" is job0. From 2017-09-04 10:30:41: 35 days
  // less 03:28:46 = 34 d 20:31:14 = 2,937,600 + 72,000 + 1,860 + 14 = 3,011,474 s.
  const JobSpec& j0 = spec_named(w, "job0");
  CHECK(j0.request.submit == from_seconds(3011474));
  CHECK(j0.request.workers == 1);
  CHECK(j0.request.devices_per_worker == 1);
  CHECK(w.queues[j0.request.queue] == "11cb48");
  CHECK(j0.iterations == Approx(66)); // no model: one iteration = 1 s on the reference V100
  CHECK(j0.trace_status == TraceStatus::kCompleted);
  // Line 9938: "2017-10-27 12:49:12,1257.0,12,15084.0,e13805" is job9936: 53 days (Sep 4 -> Oct
  // 27) + 02:18:31 = 4,579,200 + 8,311 = 4,587,511 s; 12 GPUs = 2 workers x 6.
  const JobSpec& j12 = spec_named(w, "job9936");
  CHECK(j12.request.submit == from_seconds(4587511));
  CHECK(j12.request.workers == 2);
  CHECK(j12.request.devices_per_worker == 6);
  CHECK(j12.iterations == Approx(1257));
  CHECK(w.queues[j12.request.queue] == "e13805");
  // Line 23198: "2017-12-12 21:38:32,7673.0,128,982144.0,ee9e8c": 128 GPUs = 16 x 8.
  const JobSpec& j128 = spec_named(w, "job23196");
  CHECK(j128.request.workers == 16);
  CHECK(j128.request.devices_per_worker == 8);
  CHECK(j128.iterations == Approx(7673));
  // Line 31568 is the first submit: time 0.
  CHECK(spec_named(w, "job31566").request.submit == 0);
}

TEST_CASE("philly-csv: the bundled excerpt is the real file's first 300 rows",
          "[formats][philly-csv]") {
  Trace t = read_philly_csv_trace(kBundled + "/philly_pollux_excerpt.csv", ReadOptions{});
  CHECK(t.jobs.size() == 300); // 301 lines: the header and 300 rows
  // Its line 2 is the real file's line 2 (job0 above): 66 s, 1 GPU, VC 11cb48.
  CHECK(t.jobs[0].duration_s == 66);
  CHECK(t.queues.at(t.jobs[0].queue) == "11cb48");
}

TEST_CASE("philly-csv: malformed rows name file, line and column",
          "[formats][philly-csv][errors]") {
  ScratchDir dir;
  const std::string header = "timestamp,duration,num_gpus,gpu_time,cluster\n";
  const std::string good = "2017-10-01 00:00:00,60.0,1,60.0,vcA\n";
  auto err = [&](const std::string& body) {
    std::string f = dir.write("p.csv", header + good + body);
    return message_of([&] { read_philly_csv_trace(f, ReadOptions{}); });
  };
  std::string f = dir.file("p.csv");
  CHECK(err("2017-13-01 00:00:00,60.0,1,60.0,vcA\n") ==
        f + ":3: timestamp: expected a time YYYY-MM-DD HH:MM:SS, got '2017-13-01 00:00:00'");
  CHECK(err("2017-10-01 00:00:00,abc,1,60.0,vcA\n") ==
        f + ":3: duration: expected a number, got 'abc'");
  CHECK(err("2017-10-01 00:00:00,-5,1,-5,vcA\n") ==
        f + ":3: duration: expected a run time from 0 to 1e+09 s, got -5");
  CHECK(err("2017-10-01 00:00:00,60.0,0,0,vcA\n") ==
        f + ":3: num_gpus: expected 1 to 100000 GPUs, got 0");
  // Bounds that keep every time exact in SimTime (trace_limits.h): 1e9 s, 100,000 GPUs.
  CHECK(err("2017-10-01 00:00:00,1e308,1,1e308,vcA\n") ==
        f + ":3: duration: expected a run time from 0 to 1e+09 s, got 1e+308");
  // gpu_time must be duration x num_gpus = 60 x 2 = 120.
  CHECK(err("2017-10-01 00:00:00,60.0,2,60.0,vcA\n") ==
        f + ":3: gpu_time: expected duration x num_gpus = 120, got 60");
  CHECK(err("2017-10-01 00:00:00,60.0\n") ==
        f + ":3: expected 5 comma-separated fields as in the header, got fewer");
  // A missing required column and an empty file.
  std::string no_gpus = dir.write("n.csv", "timestamp,duration\n2017-10-01 00:00:00,5\n");
  CHECK_THAT(message_of([&] { read_philly_csv_trace(no_gpus, ReadOptions{}); }),
             Catch::StartsWith(no_gpus +
                               ":1: num_gpus: required column of the philly-csv format missing"));
  std::string empty = dir.write("e.csv", "");
  CHECK(message_of([&] { read_philly_csv_trace(empty, ReadOptions{}); }) ==
        empty + ": empty file: expected a philly-csv CSV header line");

  // --skip-bad-jobs: the bad rows are counted, the first reasons kept, the good ones read.
  std::string mixed =
      dir.write("m.csv", header + good + "x,1,1,1,vcA\n" + good + "2017-10-01 00:00:00,1,1\n");
  Trace t = read_philly_csv_trace(mixed, skipping());
  CHECK(t.jobs.size() == 2);
  CHECK(t.skipped == 2);
  REQUIRE(t.skip_reasons.size() == 2);
  CHECK(t.skip_reasons[0] == mixed + ":3: timestamp: expected a time YYYY-MM-DD HH:MM:SS, got 'x'");
  CHECK(t.name(t.jobs[1]) == "job2"); // names count rows, skipped ones included
}

TEST_CASE("philly: the synthetic cluster_job_log imports as the trace authors' notebook counts it",
          "[formats][philly]") {
  Trace t =
      read_philly_json_trace(kBundled + "/philly_cluster_job_log_synthetic.json", ReadOptions{});
  // 11 job objects; not replayed: _0005 (no attempt), _0006 (last end_time "None"), _0007 (first
  // start_time "None"). 11 - 3 = 8.
  CHECK(t.jobs.size() == 8);
  REQUIRE(t.warnings.size() == 1);
  CHECK_THAT(t.warnings[0], Catch::Contains("1 jobs with no attempt, 2 with no recorded run time"));
  SelectionReport r = select_trace(t, TraceSelection{}, 1);
  CHECK(r.origin_s == *parse_datetime("2017-09-30 23:59:59")); // _0010 is submitted first
  Workload w = resolve(std::move(t), eight_by_eight());
  REQUIRE(w.jobs.size() == 8);
  // _0002: two attempts; run time = last end 02:08:00 - first start 00:06:00 = 7,320 s; GPUs =
  // the first attempt's 8; submitted 00:05:00, 301 s after the origin 23:59:59.
  const JobSpec& j2 = spec_named(w, "application_synthetic_0002");
  CHECK(j2.iterations == Approx(7320));
  CHECK(j2.request.workers == 1);
  CHECK(j2.request.devices_per_worker == 8);
  CHECK(j2.request.submit == from_seconds(301));
  CHECK(w.queues[j2.request.queue] == "11cb48");
  CHECK(w.users[j2.request.user] == "u02");
  // _0003: Failed, three attempts: 00:15:30 - 00:10:05 = 325 s on 2 GPUs.
  const JobSpec& j3 = spec_named(w, "application_synthetic_0003");
  CHECK(j3.trace_status == TraceStatus::kFailed);
  CHECK(j3.iterations == Approx(325));
  CHECK(j3.request.devices() == 2);
  // _0004: Killed, two machines x 8 GPUs = 16 = 2 workers x 8, 5 h = 18,000 s.
  const JobSpec& j4 = spec_named(w, "application_synthetic_0004");
  CHECK(j4.trace_status == TraceStatus::kKilled);
  CHECK(j4.request.workers == 2);
  CHECK(j4.request.devices_per_worker == 8);
  CHECK(j4.iterations == Approx(18000));
  // _0009: 8 + 4 GPUs = 12 = 2 x 6; 01:36:40 - 01:20:00 = 1,000 s.
  const JobSpec& j9 = spec_named(w, "application_synthetic_0009");
  CHECK(j9.request.workers == 2);
  CHECK(j9.request.devices_per_worker == 6);
  CHECK(j9.iterations == Approx(1000));
  // Status counts among the 8: Failed _0003; Killed _0004 and _0011.
  auto count = [&](TraceStatus s) {
    return std::count_if(w.jobs.begin(), w.jobs.end(),
                         [&](const JobSpec& j) { return j.trace_status == s; });
  };
  CHECK(count(TraceStatus::kFailed) == 1);
  CHECK(count(TraceStatus::kKilled) == 2);
}

TEST_CASE("philly: bad JSON and bad jobs are errors with file, line and key path",
          "[formats][philly][errors]") {
  ScratchDir dir;
  auto err = [&](const std::string& text) {
    std::string f = dir.write("p.json", text);
    return message_of([&] { read_philly_json_trace(f, ReadOptions{}); });
  };
  std::string f = dir.file("p.json");
  const std::string attempt =
      R"({"start_time": "2017-10-01 00:01:00", "end_time": "2017-10-01 00:02:00", "detail": [{"ip": "m1", "gpus": ["gpu0"]}]})";
  auto job = [&](const std::string& id, const std::string& extra) {
    return R"({"status": "Pass", "vc": "v", "jobid": ")" + id +
           R"(", "user": "u", "submitted_time": "2017-10-01 00:00:00", )" + extra + "}";
  };
  CHECK(err("") == f + ": empty file: expected a JSON array of Philly jobs");
  CHECK(err("{\"jobid\": 1}") == f + ":1: expected a JSON array of Philly jobs ([{...}, ...])");
  // A syntax error: nlohmann names line and column.
  CHECK_THAT(err("[\n" + job("a", "\"attempts\": []") + ",\n  {\"status\": }\n]"),
             Catch::StartsWith(f + ": parse error at line 3, column 14"));
  // A job on line 3 (the second element) without submitted_time.
  CHECK(err("[\n" + job("a", "\"attempts\": [" + attempt + "]") + ",\n" +
            R"({"status": "Pass", "vc": "v", "jobid": "b", "attempts": []})" + "\n]") ==
        f + ":3: [1] (jobid b).submitted_time: missing key");
  CHECK(err("[" + job("a", R"("status2": 1, "attempts": 5)") + "]") ==
        f + ":1: [0] (jobid a).attempts: expected a list of attempts");
  CHECK(
      err(R"([{"status": "Done", "vc": "v", "jobid": "a", "submitted_time": "2017-10-01 00:00:00", "attempts": []}])") ==
      f + ":1: [0] (jobid a).status: expected Pass, Killed or Failed, got 'Done'");
  // Times that go backwards: an attempt that ends before it starts.
  CHECK(
      err("[" +
          job("a",
              R"("attempts": [{"start_time": "2017-10-01 00:05:00", "end_time": "2017-10-01 00:04:00", "detail": []}])") +
          "]") == f + ":1: [0] (jobid a).attempts[0].end_time: time goes backwards: ends "
                      "2017-10-01 00:04:00 before its start_time 2017-10-01 00:05:00");
  CHECK(err("[" + job("a", "\"attempts\": [" + attempt + "]") + "," +
            job("a", "\"attempts\": [" + attempt + "]") + "]") ==
        f + ":1: [1] (jobid a).jobid: duplicate job id 'a'");

  // With --skip-bad-jobs the reader goes on after a bad job.
  std::string mixed = dir.write("m.json", "[\n" + job("a", "\"attempts\": [" + attempt + "]") +
                                              ",\n" + job("b", "\"attempts\": 7") + ",\n" +
                                              job("c", "\"attempts\": [" + attempt + "]") + "\n]");
  Trace t = read_philly_json_trace(mixed, skipping());
  CHECK(t.jobs.size() == 2);
  CHECK(t.skipped == 1);
  REQUIRE(t.skip_reasons.size() == 1);
  CHECK(t.skip_reasons[0] == mixed + ":3: [1] (jobid b).attempts: expected a list of attempts");
}

TEST_CASE("helios: the synthetic cluster_log.csv maps every column", "[formats][helios]") {
  Trace t = read_helios_trace(kBundled + "/helios_cluster_log_synthetic.csv", ReadOptions{});
  // 14 rows; not replayed: 200004 and 200011 (gpu_num 0), 200005 (duration 0). 14 - 3 = 11.
  CHECK(t.jobs.size() == 11);
  select_trace(t, TraceSelection{}, 1); // time zero: 200001's submit, 2020-09-01 00:00:00
  Workload w = resolve(std::move(t), eight_by_eight());
  REQUIRE(w.jobs.size() == 11);
  // 200003: FAILED, 16 GPUs on 2 nodes = 2 x 8, 64 CPUs / 2 workers = 32 per worker, submitted
  // 00:02:00 = 120 s after the first submit (200001, 00:00:00), 300 s.
  const JobSpec& a = spec_named(w, "200003");
  CHECK(a.trace_status == TraceStatus::kFailed);
  CHECK(a.request.workers == 2);
  CHECK(a.request.devices_per_worker == 8);
  CHECK(w.details_of(a.request).cpus_per_worker == 32);
  CHECK(a.request.submit == from_seconds(120));
  CHECK(a.iterations == Approx(300));
  CHECK(w.users[a.request.user] == "uAa01");
  CHECK(w.queues[a.request.queue] == "vcBeta");
  // 200010: 3 GPUs on 2 nodes does not divide: the total rule gives 1 x 3, and 6 CPUs.
  const JobSpec& b = spec_named(w, "200010");
  CHECK(b.request.workers == 1);
  CHECK(b.request.devices_per_worker == 3);
  CHECK(w.details_of(b.request).cpus_per_worker == 6);
  // TIMEOUT and NODE_FAIL count as failed, CANCELLED as killed.
  CHECK(spec_named(w, "200007").trace_status == TraceStatus::kFailed);
  CHECK(spec_named(w, "200008").trace_status == TraceStatus::kFailed);
  CHECK(spec_named(w, "200013").trace_status == TraceStatus::kKilled);
  CHECK(spec_named(w, "200014").request.workers == 4); // 32 GPUs on 4 nodes
}

TEST_CASE("helios: bad rows and times that go backwards", "[formats][helios][errors]") {
  ScratchDir dir;
  const std::string header = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,"
                             "end_time,duration,queue\n";
  auto err = [&](const std::string& row) {
    std::string f = dir.write("h.csv", header + row);
    return message_of([&] { read_helios_trace(f, ReadOptions{}); });
  };
  std::string f = dir.file("h.csv");
  CHECK(
      err("1,u,vc,1,1,1,DONE,2020-09-01 00:00:00,2020-09-01 00:00:00,2020-09-01 00:01:00,60,0\n") ==
      f + ":2: state: expected COMPLETED, CANCELLED, FAILED, TIMEOUT or NODE_FAIL, got 'DONE'");
  CHECK(err("1,u,vc,1,1,1,COMPLETED,2020-09-01 00:05:00,2020-09-01 00:00:00,2020-09-01 "
            "00:01:00,60,0\n") == f + ":2: start_time: time goes backwards: starts 2020-09-01 "
                                      "00:00:00 before its submit_time 2020-09-01 00:05:00");
  CHECK(err("1,u,vc,1,1,1,COMPLETED,2020-09-01 00:00:00,2020-09-01 00:02:00,2020-09-01 "
            "00:01:00,60,0\n") == f + ":2: end_time: time goes backwards: ends 2020-09-01 00:01:00 "
                                      "before its start_time 2020-09-01 00:02:00");
  CHECK(err("1,u,vc,one,1,1,COMPLETED,2020-09-01 00:00:00,,,60,0\n") ==
        f + ":2: gpu_num: expected an integer, got 'one'");
  std::string bad_header = dir.write("b.csv", "job_id,user,gpu_num\n1,u,1\n");
  CHECK_THAT(
      message_of([&] { read_helios_trace(bad_header, ReadOptions{}); }),
      Catch::StartsWith(bad_header + ":1: vc: required column of the helios format missing"));
}

TEST_CASE("tiresias: the real 60_job.csv imports 60 jobs with zoo models where they match",
          "[formats][tiresias][real]") {
  REQUIRE_SHARED_TRACES();
  Trace t = read_tiresias_trace(kShared + "/tiresias/60_job.csv", ReadOptions{});
  // 61 lines = header + 60 rows (job ids 0..59), every duration > 0.
  CHECK(t.jobs.size() == 60);
  // Ten models x 6 jobs; resnet50, vgg16 and inception3 (= inception_v3) are in the zoo: 18 jobs
  // get a model, 60 - 18 = 42 stay model-less.
  REQUIRE(t.warnings.size() == 1);
  CHECK_THAT(
      t.warnings[0],
      Catch::StartsWith(kShared + "/tiresias/60_job.csv: 42 jobs have a model the zoo lacks"));
  Workload w = resolve(std::move(t), eight_by_eight());
  // "5,8,132,288,inception3,138,44": 8 GPUs = 1 x 8 at 132 s, inception_v3, 138 s.
  const JobSpec& j5 = spec_named(w, "5");
  CHECK(j5.request.submit == from_seconds(132));
  CHECK(j5.request.devices_per_worker == 8);
  CHECK(w.models[j5.request.model] == "inception_v3");
  // iterations = 138 s / inception_v3's V100 iteration time: the job still runs 138 s there.
  CHECK(j5.iterations * w.perf.iter_time(j5.request.model, w.reference_device) == Approx(138));
  // "2,2,53,157,inception4,127,26": no zoo model.
  CHECK(spec_named(w, "2").request.model == 0);
  CHECK(w.models[spec_named(w, "9").request.model] == "resnet50");
  std::size_t gpus = 0;
  for (const auto& j : w.jobs)
    gpus += j.request.devices();
  CHECK(gpus == 170); // 30 x 1 + 10 x 2 + 10 x 4 + 10 x 8
}

TEST_CASE("tiresias: the bundled copy, and times that go backwards",
          "[formats][tiresias][errors]") {
  CHECK(read_tiresias_trace(kBundled + "/tiresias_60_job.csv", ReadOptions{}).jobs.size() == 60);
  ScratchDir dir;
  std::string f =
      dir.write("t.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
                         "0,1,10,5,vgg16,100,5\n1,1,5,5,vgg16,100,5\n");
  CHECK(message_of([&] { read_tiresias_trace(f, ReadOptions{}); }) ==
        f + ":3: submit_time: time goes backwards: 5 s after 10 s on line 2 (the format lists jobs "
            "in submission order)");
  std::string dup = dir.write("d.csv", "job_id,num_gpu,submit_time,duration\n0,1,0,9\n0,1,1,9\n");
  CHECK(message_of([&] { read_tiresias_trace(dup, ReadOptions{}); }) ==
        dup + ":3: job_id: duplicate job id '0'");
  CHECK(tiresias_model_to_zoo("inception3") == "inception_v3");
  CHECK(tiresias_model_to_zoo("vgg19").empty());
  CHECK(tiresias_model_to_zoo("bert_base") == "bert_base"); // not a Tiresias name: kept
}

TEST_CASE("format auto guesses every format from the name and first line", "[formats][auto]") {
  CHECK(guess_trace_format(kBundled + "/philly_cluster_job_log_synthetic.json").format == "philly");
  CHECK(guess_trace_format(kBundled + "/philly_pollux_excerpt.csv").format == "philly-csv");
  CHECK(guess_trace_format(kBundled + "/helios_cluster_log_synthetic.csv").format == "helios");
  CHECK(guess_trace_format(kBundled + "/tiresias_60_job.csv").format == "tiresias");
  CHECK(guess_trace_format(kBundled + "/sample.csv").format == "native");
  ScratchDir dir;
  CHECK(guess_trace_format(dir.write("o.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"))
            .format == "openb");
  CHECK(guess_trace_format(
            dir.write("s.swf", "; Version: 2.2\n1 0 1 10 4 -1 -1 4 -1 -1 1 1 1 -1 1 -1 -1 -1\n"))
            .format == "swf");
  CHECK(guess_trace_format(dir.write("s2.txt", "1 0 1 10 4 -1 -1 4 -1 -1 1 1 1 -1 1 -1 -1 -1\n"))
            .format == "swf");
  std::filesystem::create_directory(dir.file("pai"));
  dir.write("pai/pai_job_table.csv", "");
  CHECK(guess_trace_format(dir.file("pai")).format == "pai2020");
  // Every guess names a registered format.
  for (const auto& f :
       {"philly", "philly-csv", "helios", "tiresias", "native", "openb", "swf", "pai2020"}) {
    CHECK_NOTHROW(find_trace_format(f));
  }
  std::string empty = dir.write("e.csv", "\n\n");
  CHECK(message_of([&] { guess_trace_format(empty); }) ==
        empty + ": empty file: nothing to guess the trace format from");
  std::string odd = dir.write("x.csv", "a,b,c\n1,2,3\n");
  CHECK_THAT(message_of([&] { guess_trace_format(odd); }),
             Catch::StartsWith(odd + ":1: the header matches no trace format: 'a,b,c'"));
}

namespace {

// Helios sample, 11 jobs, first submit 2020-09-01 00:00:00. Submit minutes: 200001 0, 200002 1,
// 200003 2 (vcBeta, FAILED), 200006 5 (vcGamma, CANCELLED), 200007 6 (vcGamma, TIMEOUT),
// 200008 7 (NODE_FAIL), 200009 8 (vcBeta), 200010 9, 200012 11, 200013 12 (vcBeta, CANCELLED),
// 200014 13 (vcGamma).
const std::string kHeliosSample = kBundled + "/helios_cluster_log_synthetic.csv";

std::vector<std::string> job_names(const Trace& t) {
  std::vector<std::string> out;
  for (const auto& j : t.jobs)
    out.emplace_back(t.name(j));
  return out;
}

} // namespace

TEST_CASE("trace selection: origin, drop-failed, VC and window", "[formats][select]") {
  const std::string& file = kHeliosSample;
  const auto names = job_names;
  SECTION("drop_failed drops 3 failed and 2 killed jobs") {
    Trace t = read_helios_trace(file, ReadOptions{});
    TraceSelection s;
    s.drop_failed = true;
    SelectionReport r = select_trace(t, s, 1);
    CHECK(r.dropped_failed == 3); // 200003 FAILED, 200007 TIMEOUT, 200008 NODE_FAIL
    CHECK(r.dropped_killed == 2); // 200006, 200013 CANCELLED
    CHECK(t.jobs.size() == 6);
  }
  SECTION("vc keeps one virtual cluster; time zero stays the whole trace's first submit") {
    Trace t = read_helios_trace(file, ReadOptions{});
    TraceSelection s;
    s.vc = "vcBeta";
    select_trace(t, s, 1);
    CHECK(names(t) == std::vector<std::string>{"200003", "200009", "200013"});
    CHECK(t.jobs[0].submit_s == 120); // 00:02:00
    Trace u = read_helios_trace(file, ReadOptions{});
    s.vc = "vcNone";
    CHECK_THAT(message_of([&] { select_trace(u, s, 1); }),
               Catch::EndsWith("trace.vc: no job of " + file +
                               " is in VC 'vcNone' (its VCs: vcAlpha, vcBeta, vcGamma)"));
  }
  SECTION("window START:END keeps [START, END) after the origin and starts time at START") {
    Trace t = read_helios_trace(file, ReadOptions{});
    TraceSelection s;
    s.window = "300:540"; // minutes 5 to 9, 9 excluded
    SelectionReport r = select_trace(t, s, 1);
    CHECK(names(t) == std::vector<std::string>{"200006", "200007", "200008", "200009"});
    CHECK(r.outside_window == 7);
    CHECK(t.jobs[0].submit_s == 0);   // 300 - 300
    CHECK(t.jobs[3].submit_s == 180); // 480 - 300
  }
  SECTION("an explicit time origin drops what was submitted before it") {
    Trace t = read_helios_trace(file, ReadOptions{});
    TraceSelection s;
    s.time_origin = "2020-09-01 00:10:00";
    SelectionReport r = select_trace(t, s, 1);
    CHECK(r.before_origin == 8); // minutes 0..9
    CHECK(names(t) == std::vector<std::string>{"200012", "200013", "200014"});
    CHECK(t.jobs[0].submit_s == 60); // 00:11:00
    Trace n = read_helios_trace(file, ReadOptions{});
    s.time_origin = "1598918400"; // the same 2020-09-01 00:00:00 in seconds
    select_trace(n, s, 1);
    CHECK(n.jobs[0].submit_s == 0);
  }
}

TEST_CASE("trace selection: a seeded sample, and bad options", "[formats][select]") {
  const std::string& file = kHeliosSample;
  const auto names = job_names;
  SECTION("sample N: N jobs in file order, the same for the same seed") {
    auto pick = [&](std::uint64_t seed) {
      Trace t = read_helios_trace(file, ReadOptions{});
      TraceSelection s;
      s.sample = 4;
      SelectionReport r = select_trace(t, s, seed);
      CHECK(r.not_sampled == 7);
      return names(t);
    };
    auto a = pick(1);
    CHECK(a.size() == 4);
    CHECK(std::is_sorted(a.begin(), a.end())); // ids increase down the file
    CHECK(pick(1) == a);
    bool some_other = false;
    for (std::uint64_t seed = 2; seed < 8; ++seed)
      some_other = some_other || pick(seed) != a;
    CHECK(some_other);
  }
  SECTION("bad options name the key; an empty selection is an error") {
    TraceSelection s;
    s.window = "10";
    CHECK_THAT(message_of([&] { check_selection(s); }),
               Catch::StartsWith("trace.window: expected START:END"));
    s.window = "20:10";
    CHECK_THAT(message_of([&] { check_selection(s); }), Catch::EndsWith("END must be after START"));
    s.window = "";
    s.time_origin = "yesterday";
    CHECK_THAT(message_of([&] { check_selection(s); }),
               Catch::StartsWith("trace.time_origin: expected first-submit"));
    Trace t = read_helios_trace(file, ReadOptions{});
    TraceSelection late;
    late.window = "100000:";
    CHECK_THAT(message_of([&] { select_trace(t, late, 1); }),
               Catch::Contains("the trace selection leaves no job"));
  }
}

TEST_CASE("dlsim validate prints jobs: N for each real file", "[formats][cli][real]") {
  REQUIRE_SHARED_TRACES();
  ScratchDir dir;
  struct Case {
    std::string file, format, cluster;
    int jobs;
  };
  // Hand counts as above: pollux_philly.csv 82,247 rows; 60_job.csv 60 rows.
  for (const Case& c :
       {Case{kShared + "/philly-derived/pollux_philly.csv", "philly-csv",
             "configs/clusters/philly.yaml", 82247},
        Case{kShared + "/tiresias/60_job.csv", "tiresias", "configs/clusters/small.yaml", 60},
        Case{kShared + "/tiresias/60_job.csv", "auto", "configs/clusters/small.yaml", 60}}) {
    Outcome r = run_dlsim(
        "validate --trace '" + c.file + "' --format " + c.format + " --cluster " + c.cluster, dir);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\njobs: " + std::to_string(c.jobs) + "\n"));
    if (c.format == "auto")
      CHECK_THAT(r.err, Catch::Contains("format: guessed tiresias from the header"));
  }
}

TEST_CASE("dlsim run and validate take the selection flags", "[formats][cli]") {
  ScratchDir dir;
  Outcome r = run_dlsim("validate --trace traces/helios_cluster_log_synthetic.csv --format auto "
                        "--vc vcBeta --drop-failed --cluster configs/clusters/small.yaml",
                        dir);
  REQUIRE(r.code == 0);
  // vcBeta: 200003 (failed), 200009, 200013 (killed): one job left.
  CHECK_THAT(r.out, Catch::Contains("\njobs: 1\n"));
  CHECK_THAT(r.err, Catch::Contains("trace: drop_failed: dropped 3 failed and 2 killed jobs"));
  CHECK_THAT(r.out, Catch::Contains("\nformat: helios\n"));
  // --skip-bad-jobs prints the first reasons and counts the skips.
  std::string mixed = dir.write("m.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                         "2017-10-01 00:00:00,60,1,60,a\nbad,1,1,1,a\n");
  Outcome skipped =
      run_dlsim("validate --trace " + mixed + " --format philly-csv --skip-bad-jobs", dir);
  REQUIRE(skipped.code == 0);
  CHECK_THAT(skipped.err,
             Catch::Contains("warning: skipped 1 bad rows (--skip-bad-jobs); the first 1:\n  " +
                             mixed +
                             ":3: timestamp: expected a time YYYY-MM-DD HH:MM:SS, got 'bad'"));
  CHECK_THAT(skipped.out, Catch::Contains("\nskipped_bad_jobs: 1\n"));
  Outcome bad = run_dlsim("validate --trace traces/sample.csv --window 5", dir);
  CHECK(bad.code == 1);
  CHECK_THAT(bad.err, Catch::Contains("--window: expected START:END"));
  // The sample is drawn from the run seed: same seed, same jobs.
  Outcome a = run_dlsim(
      "run --trace traces/sample.csv --sample 50 --seed 4 -q --out " + dir.file("a"), dir);
  Outcome b = run_dlsim(
      "run --trace traces/sample.csv --sample 50 --seed 4 -q --out " + dir.file("b"), dir);
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  CHECK(read_file(dir.file("a/jobs.csv")) == read_file(dir.file("b/jobs.csv")));
  CHECK_THAT(read_file(dir.file("a/summary.json")), Catch::Contains("\"jobs\": 50,"));
}

TEST_CASE(
    "the 82,247-job Philly replay under FIFO on Philly's cluster runs every job for its duration",
    "[.][slow][formats][philly-csv][real][replay]") {
  // Hidden from the default suite (a whole-trace replay belongs with the benchmarks); run it
  // with `build/tests/dlsim_tests "[slow]"`.
  REQUIRE_SHARED_TRACES();
  // Through the dlsim binary: about a second (the in-process run with the invariant checker on
  // 2,816 GPUs takes minutes, so the checker runs on the excerpt below instead).
  ScratchDir dir;
  Outcome r = run_dlsim(
      "run --cluster configs/clusters/philly.yaml --trace '" + kShared +
          "/philly-derived/pollux_philly.csv' --format philly-csv --policy fifo -q --out " +
          dir.file("res"),
      dir);
  REQUIRE(r.code == 0);
  std::string summary = read_file(dir.file("res/summary.json"));
  CHECK_THAT(summary, Catch::Contains("\"jobs\": 82247,"));
  CHECK_THAT(summary, Catch::Contains("\"finished\": 82247,"));
  // Nothing waits (the trace asks for 374 GPUs on average: sum(gpu_time) / span =
  // 3,521,082,502 / 9,408,690 s), and every job runs its observed duration on the reference
  // V100, so the mean JCT is the trace's mean duration: sum(duration) / 82,247 =
  // 1,080,390,950 / 82,247 = 13,135.931402 s; the median is the trace's, 1,144 s.
  CHECK_THAT(summary, Catch::Contains("\"queue_mean_s\": 0.0,"));
  CHECK_THAT(summary, Catch::Contains("\"jct_mean_s\": 13135.931402,"));
  CHECK_THAT(summary, Catch::Contains("\"jct_median_s\": 1144.0,"));
}

TEST_CASE("the bundled Philly excerpt replays under FIFO with the invariant checker",
          "[formats][philly-csv][replay]") {
  Trace t = read_philly_csv_trace(kBundled + "/philly_pollux_excerpt.csv", ReadOptions{});
  std::vector<double> durations;
  for (const auto& j : t.jobs)
    durations.push_back(j.duration_s);
  select_trace(t, TraceSelection{}, 1);
  Cluster philly =
      cluster_from_yaml(read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/configs/clusters/philly.yaml"));
  CHECK(philly.count_of_kind(DeviceKind::kGpu) == 2816); // 352 nodes x 8
  Workload w = resolve(std::move(t), philly);
  RunOutput out = run_policy("fifo", philly, w);
  for (std::size_t k = 0; k < durations.size(); ++k) {
    const JobState& s = out.state.jobs[job_named(w, "job" + std::to_string(k))];
    REQUIRE(s.status == JobStatus::kFinished);
    // Row k runs exactly its duration column: the 300 rows ask for 1, 4 or 8 GPUs and never
    // fill the 2,816 GPUs, so nothing waits.
    CHECK(to_seconds(s.end - s.first_start) == Approx(durations[k]));
  }
}

TEST_CASE("gen-trace --like helios-*: fitted to the Helios summary's median and mean run time",
          "[formats][gen-trace]") {
  // helios_cluster_summary.csv (HeliosData; Hu et al., SC'21): GPU jobs, med_run_time_gpu,
  // avg_run_time_gpu, avg_gpu_num per cluster.
  struct Row {
    const char* preset;
    double jobs, median_s, mean_s, mean_gpus;
  };
  const double span_s = 183 * 86400.0; // April to September 2020: 30+31+30+31+31+30 days
  for (const Row& r : {Row{"helios-venus", 125303, 204, 13040.598, 6.736},
                       Row{"helios-earth", 427148, 234, 5130.609, 2.101},
                       Row{"helios-saturn", 698896, 124, 5252.927, 4.01},
                       Row{"helios-uranus", 329117, 280, 9163.725, 4.038}}) {
    INFO(r.preset);
    GenTraceOptions o = gen_trace_preset(r.preset);
    // The log-normal's median is e^mu: mu = ln(median), to 4 decimals.
    CHECK(o.duration_mu == Approx(std::log(r.median_s)).margin(5e-5));
    // sigma makes the mean of the clamped log-normal the published mean, to 0.02 % (sigma has 4
    // decimals).
    CHECK(clamped_lognormal_mean(o.duration_mu, o.duration_sigma, 1, span_s) ==
          Approx(r.mean_s).epsilon(2e-4));
    CHECK(o.max_duration_s == span_s);
    CHECK(o.arrival_rate_per_hour == Approx(r.jobs / (span_s / 3600)));
    // GPU mix: P(1) = (21 - mean) / 20 and the rest uniform over 2..64, so the mean is exact and
    // the median is 1 (P(1) > 0.5 for all four clusters).
    double total = 0, mean = 0;
    for (std::size_t i = 0; i < o.gpu_sizes.size(); ++i) {
      total += o.gpu_weights[i];
      mean += o.gpu_weights[i] * o.gpu_sizes[i];
    }
    CHECK(total == Approx(1));
    CHECK(mean == Approx(r.mean_gpus));
    CHECK(o.gpu_weights[0] > 0.5);
  }
  // The Philly preset is the default generator: traces/sample.csv is still
  // `gen-trace -n 500 --models --seed 1`.
  GenTraceOptions philly = gen_trace_preset("philly");
  CHECK(philly.duration_mu == GenTraceOptions{}.duration_mu);
  CHECK(philly.gpu_weights == GenTraceOptions{}.gpu_weights);
  // "pluto" is 4 edits from "earth": near enough (a quarter of 12 letters) to be suggested.
  CHECK(message_of([] { gen_trace_preset("helios-pluto"); }) ==
        "--like: unknown trace 'helios-pluto' (did you mean helios-earth?)");
  CHECK_THAT(message_of([] { gen_trace_preset("alibaba"); }),
             Catch::StartsWith("--like: unknown trace 'alibaba' (known: philly, helios-venus"));
}

TEST_CASE("gen-trace --like helios-venus: a sample has the published median run time and GPU mix",
          "[formats][gen-trace]") {
  GenTraceOptions o = gen_trace_preset("helios-venus");
  o.jobs = 20000;
  o.seed = 5;
  std::ostringstream out;
  generate_trace(o, out);
  Trace t = trace_from_csv(out.str());
  REQUIRE(t.jobs.size() == 20000);
  std::vector<double> d;
  double gpus = 0;
  std::size_t single = 0;
  for (const auto& j : t.jobs) {
    d.push_back(j.duration_s);
    gpus += j.workers * j.devices_per_worker;
    single += j.workers * j.devices_per_worker == 1;
  }
  std::nth_element(d.begin(), d.begin() + 10000, d.end());
  // Sampling error: the log of a sample median has a standard error of about 1.2533 sigma /
  // sqrt(n) = 1.2533 x 2.9254 / 141.4 = 0.026, so 204 s +- 10 % is about 4 standard errors.
  CHECK(d[10000] == Approx(204).epsilon(0.10));
  // GPUs per job: variance = E[g^2] - mean^2 = 0.7132 + 0.0478 x 5460 - 6.736^2 = 216.3, so the
  // standard error of the mean of 20,000 is sqrt(216.3 / 20000) = 0.104; 6.736 +- 0.5.
  CHECK(gpus / 20000 == Approx(6.736).margin(0.5));
  // P(1 GPU) = 0.7132, standard error sqrt(0.7132 x 0.2868 / 20000) = 0.0032.
  CHECK(static_cast<double>(single) / 20000 == Approx(0.7132).margin(0.016));
}

TEST_CASE("helios on the Helios-sized clusters: failed and killed jobs replayed and counted",
          "[formats][helios][cli]") {
  // 128 x 8 and 125 x 8 GPUs: Venus' and Earth's mean sizes, 1,022.76 and 997.66 GPUs, rounded
  // to whole 8-GPU nodes.
  CHECK(
      cluster_from_yaml(read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/configs/clusters/helios-venus.yaml"))
          .count_of_kind(DeviceKind::kGpu) == 1024);
  CHECK(
      cluster_from_yaml(read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/configs/clusters/helios-earth.yaml"))
          .count_of_kind(DeviceKind::kGpu) == 1000);
  ScratchDir dir;
  Outcome r = run_dlsim("run --trace traces/helios_cluster_log_synthetic.csv --format helios "
                        "--cluster configs/clusters/helios-venus.yaml -q --out " +
                            dir.file("res"),
                        dir);
  REQUIRE(r.code == 0);
  std::string summary = read_file(dir.file("res/summary.json"));
  // 11 jobs, all finished; failed: 200003 FAILED, 200007 TIMEOUT, 200008 NODE_FAIL; killed:
  // 200006 and 200013 CANCELLED.
  CHECK_THAT(summary, Catch::Contains("\"finished\": 11,"));
  CHECK_THAT(summary, Catch::Contains("\"trace_failed\": 3,"));
  CHECK_THAT(summary, Catch::Contains("\"trace_killed\": 2,"));
  // With --drop-failed those five are gone: 11 - 5 = 6.
  Outcome d = run_dlsim("run --trace traces/helios_cluster_log_synthetic.csv --format helios "
                        "--cluster configs/clusters/helios-venus.yaml --drop-failed -q --out " +
                            dir.file("res2"),
                        dir);
  REQUIRE(d.code == 0);
  CHECK_THAT(read_file(dir.file("res2/summary.json")), Catch::Contains("\"jobs\": 6,"));
}

TEST_CASE("select_trace finds whether the jobs are in submit order, and build_workload trusts it",
          "[trace][select]") {
  Cluster c = cluster_from_yaml("nodes:\n  - count: 1\n    devices: {V100: 4}\n");
  // In order (3 <= 3 <= 7): no job dropped, the flag set; the workload keeps the file's order.
  Trace sorted = trace_from_csv("id,submit_s,workers,duration_s\na,3,1,10\nb,3,1,10\nc,7,1,10\n");
  SelectionReport r = select_trace(sorted, TraceSelection{}, 1);
  CHECK(r.kept == 3);
  CHECK(sorted.in_submit_order);
  Workload w = build_workload(std::move(sorted), zoo(), c, WorkloadOptions{});
  CHECK(w.job_names[0] == "a");
  CHECK(w.job_names[2] == "c");
  // Out of order (7 then 3): the flag stays false and build_workload sorts by submit: b (3 - 3 =
  // 0 after the shift to the first submit), a (4), c (5).
  Trace unsorted = trace_from_csv("id,submit_s,workers,duration_s\na,7,1,10\nb,3,1,10\nc,8,1,10\n");
  select_trace(unsorted, TraceSelection{}, 1);
  CHECK_FALSE(unsorted.in_submit_order);
  Workload u = build_workload(std::move(unsorted), zoo(), c, WorkloadOptions{});
  CHECK(u.job_names[0] == "b");
  CHECK(u.job_names[1] == "a");
  CHECK(u.job_names[2] == "c");
  CHECK(u.jobs[0].request.submit == 0);
  CHECK(u.jobs[1].request.submit == from_seconds(4.0));
  // A window drops jobs of a sorted trace: the rest are still in order. Window 1:5 after the
  // first submit 3 keeps b (4) and c (6), drops a (3 - 3 = 0 < 1) and d (9 - 3 = 6 >= 5).
  Trace windowed =
      trace_from_csv("id,submit_s,workers,duration_s\na,3,1,10\nb,4,1,10\nc,6,1,10\nd,9,1,10\n");
  TraceSelection s;
  s.window = "1:5";
  SelectionReport rw = select_trace(windowed, s, 1);
  CHECK(rw.kept == 2);
  CHECK(windowed.in_submit_order);
}
