// The pai2020, openb and swf readers and the clusters made from trace files: field mappings on
// hand-made files, every class of bad input, and the real public traces in ../shared/traces
// (skipped with a message when that folder is absent) with hand-counted job numbers.
#include "sim/cluster/cluster_yaml.h"
#include "sim/engine/error.h"
#include "tests/support/harness.h"
#include "tests/support/skip.h"
#include "workloads/cluster_from_trace.h"
#include "workloads/formats/openb.h"
#include "workloads/formats/pai2020.h"
#include "workloads/formats/swf.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace dlsim;
using namespace dlsim::test;
namespace fs = std::filesystem;

namespace {

const std::string kShared = DLSIM_SOURCE_DIR_FOR_TESTS "/../shared/traces";
const std::string kSource = DLSIM_SOURCE_DIR_FOR_TESTS;

// A skip ctest counts, or a failure in CI, which has the traces (tests/support/skip.h).
#define REQUIRE_SHARED(path)                                                                       \
  DLSIM_SKIP_UNLESS(fs::exists(path),                                                              \
                    (path) << " is absent (the real traces live in ../shared/traces)",             \
                    "DLSIM_REQUIRE_SHARED_TRACES")

const TraceJob& job(const Trace& t, const std::string& name) {
  for (const auto& j : t.jobs) {
    if (t.name(j) == name) return j;
  }
  FAIL("no job named " << name);
  return t.jobs.front();
}

std::string type_of(const Trace& t, const TraceJob& j) {
  return j.device_type == kNoString ? "" : t.device_types.at(j.device_type);
}

template <class Read>
std::string error_of(Read read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

bool has_warning(const Trace& t, const std::string& text) {
  for (const auto& w : t.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

void write_gzip(const std::string& file, const std::string& content) {
  gzFile gz = gzopen(file.c_str(), "wb");
  REQUIRE(gz != nullptr);
  REQUIRE(gzwrite(gz, content.data(), static_cast<unsigned>(content.size())) ==
          static_cast<int>(content.size()));
  REQUIRE(gzclose(gz) == Z_OK);
}

ReadOptions skipping() {
  ReadOptions o;
  o.skip_bad_jobs = true;
  return o;
}

// Runs the dlsim binary, which must succeed; returns its stdout.
std::string dlsim_stdout(const std::string& args, const ScratchDir& dir) {
  std::string out = dir.file("out.txt");
  std::string cmd = "cd '" + kSource + "' && '" DLSIM_BINARY "' " + args + " > '" + out + "' 2> '" +
                    dir.file("err.txt") + "'";
  int rc = std::system(cmd.c_str());
  INFO(read_file(dir.file("err.txt")));
  REQUIRE(rc == 0);
  return read_file(out);
}

std::string dump(const Cluster& c) {
  return YAML::Dump(cluster_to_yaml(c));
}

// ---------------------------------------------------------------------------------------------
// SWF

constexpr const char* kSwf = "; Version: 2.2\n"
                             "; MaxJobs: 3\n"
                             "\n"
                             "1 0 5 100 8 -1 -1 8 3600 -1 1 7 1 -1 2 -1 -1 -1\n"
                             "2 10 0 0 -1 -1 -1 6 -1 -1 5 8 1 -1 -1 -1 -1 -1\n"
                             "   3\t20 0 50 3 -1 -1 3 -1 -1 0 -1 -1 -1 1 -1 -1 -1\n";

} // namespace

TEST_CASE("swf: fields map to jobs, processors to GPUs by default", "[trace][swf]") {
  ScratchDir dir;
  Trace t = read_swf_trace(dir.write("t.swf", kSwf), ReadOptions{});
  REQUIRE(t.jobs.size() == 3);
  const TraceJob& a = job(t, "1");
  CHECK(a.line == 4);
  CHECK(a.submit_s == 0);
  CHECK(a.duration_s == 100); // field 4, run time
  CHECK(a.workers == 8);      // field 5, allocated processors, 1 per GPU
  CHECK(a.devices_per_worker == 1);
  CHECK(a.requested_s == 3600);       // field 9
  CHECK(t.users.at(a.user) == "7");   // field 12
  CHECK(t.queues.at(a.queue) == "2"); // field 15
  CHECK(a.trace_status == 0);         // status 1 = completed
  CHECK(type_of(t, a).empty());       // any GPU
  const TraceJob& b = job(t, "2");
  CHECK(b.workers == 6);      // allocated -1: requested processors (field 8)
  CHECK(b.duration_s == 0.5); // run time 0 = [0, 1) s: the middle
  CHECK(b.trace_status == 2); // 5 = cancelled
  CHECK(b.requested_s == 0);  // -1 = none
  CHECK(t.queues.at(b.queue).empty());
  const TraceJob& c = job(t, "3"); // leading spaces and a tab
  CHECK(c.trace_status == 1);      // 0 = failed
  CHECK(t.users.at(c.user).empty());
}

TEST_CASE("swf: processors as CPU sockets, several per device", "[trace][swf]") {
  ScratchDir dir;
  ReadOptions o;
  o.swf_devices = "cpu";
  o.swf_procs_per_device = 4;
  Trace t = read_swf_trace(dir.write("t.swf", kSwf), o);
  CHECK(job(t, "1").workers == 2); // ceil(8 / 4)
  CHECK(job(t, "2").workers == 2); // ceil(6 / 4)
  CHECK(job(t, "3").workers == 1); // ceil(3 / 4)
  CHECK(type_of(t, job(t, "3")) == "XeonCPU");
}

TEST_CASE("swf: gzip is read like plain text, a truncated gzip is an error", "[trace][swf]") {
  ScratchDir dir;
  write_gzip(dir.file("t.swf.gz"), kSwf);
  Trace t = read_swf_trace(dir.file("t.swf.gz"), ReadOptions{});
  CHECK(t.jobs.size() == 3);
  CHECK(job(t, "2").workers == 6);

  // 20,000 jobs, compressed, then cut to half its bytes.
  std::string big;
  for (int i = 1; i <= 20000; ++i)
    big += fmt::format("{} {} 0 {} 4 -1 -1 4 -1 -1 1 {} 1 -1 1 -1 -1 -1\n", i, i, 100 + i % 977,
                       i % 31);
  write_gzip(dir.file("big.swf.gz"), big);
  CHECK(read_swf_trace(dir.file("big.swf.gz"), ReadOptions{}).jobs.size() == 20000);
  auto size = fs::file_size(dir.file("big.swf.gz"));
  fs::resize_file(dir.file("big.swf.gz"), size / 2);
  std::string e = error_of([&] { read_swf_trace(dir.file("big.swf.gz"), ReadOptions{}); });
  CHECK(e.find("big.swf.gz: truncated gzip file") != std::string::npos);
  // Not even skipping saves a truncated file: its end is lost.
  CHECK(error_of([&] { read_swf_trace(dir.file("big.swf.gz"), skipping()); }) == e);
}

TEST_CASE("swf: bad rows name file, line and field", "[trace][swf][errors]") {
  ScratchDir dir;
  auto err = [&](const std::string& text) {
    return error_of([&] { read_swf_trace(dir.write("t.swf", text), ReadOptions{}); });
  };
  const std::string ok = "1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n";
  CHECK(err(ok + "2 5 0 x 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n") ==
        dir.file("t.swf") + ":2: run_time (field 4): expected a number, got 'x'");
  CHECK(err(ok + "2 5 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1\n") ==
        dir.file("t.swf") +
            ":2: row: expected 18 whitespace-separated fields (SWF v2.2), found 17");
  CHECK(err("1 20 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n2 5 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 "
            "-1 -1\n") ==
        dir.file("t.swf") +
            ":2: submit_time (field 2): goes backwards: 5 is before the previous job's 20 "
            "(an SWF log is sorted by submit time)");
  CHECK(err(ok + "2 5 0 -1 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n") ==
        dir.file("t.swf") +
            ":2: run_time (field 4): run time unknown (-1): the job's work cannot be known");
  CHECK(err(ok + "2 5 0 10 -1 -1 -1 -1 -1 -1 1 1 1 -1 1 -1 -1 -1\n") ==
        dir.file("t.swf") + ":2: allocated_procs (field 5): neither allocated_procs nor "
                            "requested_procs is known (both -1 or 0)");
  CHECK(err(ok + "2 5 0 10 1 -1 -1 1 -1 -1 7 1 1 -1 1 -1 -1 -1\n") ==
        dir.file("t.swf") + ":2: status (field 11): expected 1 (completed), 0 (failed), 5 "
                            "(cancelled), 2-4 (partial) or -1, got 7");
  // Bounds that keep every time exact in SimTime (workloads/formats/trace_limits.h).
  CHECK(err(ok + "2 5 0 2000000000 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n") ==
        dir.file("t.swf") + ":2: run_time (field 4): must be at most 1000000000 s, got 2000000000");
  CHECK(err(ok + "2 5 0 10 200000 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n") ==
        dir.file("t.swf") + ":2: allocated_procs (field 5): 200000 processors are 200000 devices, "
                            "more than 100000 (raise trace.swf_procs_per_device)");
  CHECK(err(ok + ok) ==
        dir.file("t.swf") + ":2: job_number (field 1): duplicate job number 1 (first on line 1)");
  CHECK(err("") ==
        dir.file("t.swf") + ": empty SWF log: no job lines (only ';' comments or nothing)");
  CHECK(err("; only a header\n;\n") ==
        dir.file("t.swf") + ": empty SWF log: no job lines (only ';' comments or nothing)");
  // A CSV handed to the SWF reader fails on its header line.
  CHECK(err("id,submit_s,workers,duration_s\na,0,1,10\n") ==
        dir.file("t.swf") + ":1: row: expected 18 whitespace-separated fields (SWF v2.2), found 1");
  CHECK(error_of([&] {
          read_swf_trace(dir.file("missing.swf"), ReadOptions{});
        }).find("missing.swf: cannot open") != std::string::npos);

  // Skipping: 2 bad rows of 4 (a bad run time, then a duplicate) are counted, 2 jobs remain.
  Trace t =
      read_swf_trace(dir.write("t.swf", ok + "2 5 0 x 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n" +
                                            "3 6 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n" + ok),
                     skipping());
  CHECK(t.jobs.size() == 2);
  CHECK(t.skipped == 2);
  CHECK(t.skip_reasons.size() == 2);
}

TEST_CASE("swf: partial-execution lines are left to the job's summary line", "[trace][swf]") {
  ScratchDir dir;
  Trace t = read_swf_trace(dir.write("t.swf", "1 0 0 30 2 -1 -1 2 -1 -1 1 1 1 -1 1 -1 -1 -1\n"
                                              "1 0 0 10 2 -1 -1 2 -1 -1 2 1 1 -1 1 -1 -1 -1\n"
                                              "1 0 0 20 2 -1 -1 2 -1 -1 3 1 1 -1 1 -1 -1 -1\n"),
                           ReadOptions{});
  REQUIRE(t.jobs.size() == 1);
  CHECK(t.jobs[0].duration_s == 30);
  CHECK(has_warning(t, "ignored 2 partial-execution lines"));
}

TEST_CASE("swf: the real RICC log imports whole, with its spot-checked rows",
          "[trace][swf][real]") {
  const std::string file = kShared + "/swf/RICC-2010-2.swf.gz";
  REQUIRE_SHARED(file);
  Trace t = read_swf_trace(file, ReadOptions{});
  // zcat RICC-2010-2.swf.gz | grep -vc '^;' = 447794, the header's MaxJobs.
  CHECK(t.jobs.size() == 447794);
  CHECK(t.skipped == 0);
  std::size_t killed = 0, failed = 0;
  for (const auto& j : t.jobs) {
    killed += j.trace_status == 2;
    failed += j.trace_status == 1;
  }
  // zcat ... | awk '!/^;/ && $11==5' | wc -l = 16245; no status-0 line.
  CHECK(killed == 16245);
  CHECK(failed == 0);
  // Line 21: "1 0 0 222 80 -1 -1 80 14400 1200000 1 1 1 -1 1 -1 -1 -1"
  const TraceJob& first = job(t, "1");
  CHECK(first.line == 21);
  CHECK(first.submit_s == 0);
  CHECK(first.duration_s == 222);
  CHECK(first.workers == 80);
  CHECK(first.requested_s == 14400);
  CHECK(t.users.at(first.user) == "1");
  // Line 48: "28 11557 0 43735 8 -1 -1 8 259200 1200000 5 6 6 -1 1 -1 -1 -1"
  const TraceJob& cancelled = job(t, "28");
  CHECK(cancelled.submit_s == 11557);
  CHECK(cancelled.duration_s == 43735);
  CHECK(cancelled.workers == 8);
  CHECK(cancelled.trace_status == 2);
  CHECK(t.users.at(cancelled.user) == "6");
  // Line 9892: "9872 921645 0 0 8 ... 5 25 23 ..." ran 0 s: 0.5 s.
  CHECK(job(t, "9872").duration_s == 0.5);
  // Line 220211: "220191 9396866 0 34 8192 ..." holds the whole machine.
  CHECK(job(t, "220191").workers == 8192);
  // The last line, 447814: "447794 13216249 0 28 4 ...".
  CHECK(t.name(t.jobs.back()) == "447794");
  CHECK(t.jobs.back().submit_s == 13216249);
}

// ---------------------------------------------------------------------------------------------
// openb

namespace {

constexpr const char* kPods =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_"
    "time,deletion_time,scheduled_time\n"
    "p0,4000,8192,1,500,,LS,Running,10,110,20\n"
    "p1,88000,327680,8,1000,G3,Burstable,Succeeded,30,1030,30\n"
    "p2,3152,5600,0,0,,BE,Running,40,50,40\n"
    "p3,6000,12288,1,460,,BE,Pending,50,60,\n"
    "p4,2000,4096,2,1000,V100M16|V100M32,LS,Failed,60,60,60\n"
    "p5,2000,4096,1,1000,A10|T4,LS,Running,70,170,75\n";

} // namespace

TEST_CASE("openb: pods map to one-worker jobs with fractional GPUs", "[trace][openb]") {
  ScratchDir dir;
  Trace t = read_openb_trace(dir.write("pods.csv", kPods), ReadOptions{});
  REQUIRE(t.jobs.size() == 5); // p3 (never scheduled) is skipped
  const TraceJob& p0 = job(t, "p0");
  CHECK(p0.submit_s == 10);   // creation_time
  CHECK(p0.duration_s == 90); // deletion 110 - scheduled 20
  CHECK(p0.workers == 1);
  CHECK(p0.devices_per_worker == 1);
  CHECK(p0.gpu_share_min == 0.5);   // gpu_milli 500 / 1000
  CHECK(p0.cpus_per_worker == 4);   // 4000 milli-cores
  CHECK(p0.mem_gb_per_worker == 8); // 8192 MiB / 1024
  CHECK(t.queues.at(p0.queue) == "LS");
  CHECK(p0.trace_status == 0);
  const TraceJob& p1 = job(t, "p1");
  CHECK(p1.devices_per_worker == 8);
  CHECK(p1.gpu_share_min == 1);
  CHECK(type_of(t, p1) == "G3");
  CHECK(p1.mem_gb_per_worker == 320); // 327680 / 1024
  CHECK(p1.duration_s == 1000);
  const TraceJob& p4 = job(t, "p4");
  CHECK(type_of(t, p4) == "V100"); // both V100M16 and V100M32 are V100s
  CHECK(p4.duration_s == 0.5);     // deleted in the second it was scheduled
  CHECK(p4.trace_status == 1);     // Failed
  const TraceJob& p5 = job(t, "p5");
  CHECK(type_of(t, p5).empty()); // A10|T4: one of several models, so any GPU
  CHECK(p5.duration_s == 95);    // 170 - 75
  // p2, CPU-only: a host task (0 devices) with its cores and memory, on its observed run time.
  const TraceJob& p2 = job(t, "p2");
  CHECK(p2.device_type == kNoString);
  CHECK(!p2.observed_on_device_type);
  CHECK(p2.devices_per_worker == 0);
  CHECK(p2.gpu_share_min == 1);
  CHECK(p2.cpus_per_worker == Approx(3.152));
  CHECK(p2.mem_gb_per_worker == Approx(5.46875)); // 5600 / 1024
  CHECK(p2.duration_s == 10);                     // 50 - 40
  CHECK(has_warning(t, "1 CPU-only pods (num_gpu 0) run as host tasks"));
  CHECK(has_warning(t, "skipped 1 pods that never ran"));
  CHECK(has_warning(t, "1 pods allow several GPU models"));
}

TEST_CASE("openb: a pod list without times (multigpu files)", "[trace][openb]") {
  ScratchDir dir;
  std::string file =
      dir.write("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                            "a,1000,1024,1,250\nb,8000,8192,4,1000\nc,1000,1024,0,0\n");
  Trace t = read_openb_trace(file, ReadOptions{});
  REQUIRE(t.jobs.size() == 3);
  CHECK(job(t, "c").devices_per_worker == 0); // CPU-only: a host task
  CHECK(job(t, "a").submit_s == 0);
  CHECK(job(t, "a").duration_s == kOpenbUntimedDurationS);
  CHECK(job(t, "a").gpu_share_min == 0.25);
  CHECK(job(t, "b").devices_per_worker == 4);
  CHECK(has_warning(t, "no creation/deletion times"));
  ReadOptions o;
  o.openb_duration_s = 100;
  CHECK(read_openb_trace(file, o).jobs[0].duration_s == 100);
}

TEST_CASE("openb: bad pod lists name file, line and column", "[trace][openb][errors]") {
  ScratchDir dir;
  auto err = [&](const std::string& text) {
    return error_of([&] { read_openb_trace(dir.write("p.csv", text), ReadOptions{}); });
  };
  const std::string header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                             "creation_time,deletion_time,scheduled_time\n";
  const std::string f = dir.file("p.csv");
  CHECK(err("sn,cpu_milli,memory_mib,gpu,model\nn0,32000,131072,0,\n") ==
        f + ":1: the header is not an openb pod list: missing name, num_gpu, gpu_milli (expected "
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli and optionally "
            "gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time)");
  CHECK(err(header + "a,1000,1024,1,1500,,LS,Running,0,10,0\n") ==
        f + ":2: gpu_milli: must be at most 1000 (one whole GPU), got 1500");
  CHECK(err(header + "a,1000,1024,2,500,,LS,Running,0,10,0\n") ==
        f + ":2: gpu_milli: a pod of 2 GPUs must have gpu_milli 1000 (whole GPUs), got 500");
  CHECK(err(header + "a,1000,1024,1,500,,LS,Running,0,5,20\n") ==
        f + ":2: deletion_time: goes backwards: 5 is before scheduled_time 20");
  CHECK(err(header + "a,1000,1024,1,500,,LS,Running,30,50,20\n") ==
        f + ":2: scheduled_time: goes backwards: 20 is before creation_time 30");
  CHECK(err(header + "a,1000,1024,1,500,,LS,Running,0,5e12,0\n") ==
        f + ":2: deletion_time: must be at most 1000000000 s, got 5000000000000");
  CHECK(err(header + "a,1000,1024,1,500,,LS,Done,0,5,0\n") ==
        f + ":2: pod_phase: expected Running, Succeeded, Failed or Pending, got 'Done'");
  CHECK(err(header + "a,1000,1024,1,500,,LS,Running,0,5,0,9\n") ==
        f + ":2: expected 11 comma-separated fields as in the header, got more");
  CHECK(err(header + "a,1000,x,1,500,,LS,Running,0,5,0\n") ==
        f + ":2: memory_mib: expected an integer, got 'x'");
  CHECK(
      err(header + "a,1000,1024,1,500,,LS,Running,0,5,0\na,1000,1024,1,500,,LS,Running,0,5,0\n") ==
      f + ":3: name: duplicate pod name 'a'");
  CHECK(err("").find(": empty file") != std::string::npos);
  CHECK(err(header) == f + ": the pod list has no pod that ran");
  Trace t = read_openb_trace(dir.write("p.csv", header + "a,1000,1024,1,1500,,LS,Running,0,10,0\n"
                                                         "b,1000,1024,1,500,,LS,Running,0,10,0\n"),
                             skipping());
  CHECK(t.jobs.size() == 1);
  CHECK(t.skipped == 1);
}

TEST_CASE("openb: every real pod list imports with its hand count", "[trace][openb][real]") {
  const std::string dir = kShared + "/alibaba-openb-gpu-v2023";
  REQUIRE_SHARED(dir);
  // Pods that ran, GPU and CPU-only. With times: awk -F, 'NR>1 && $11!=""' FILE | wc -l
  // (of which CPU-only: add && $4==0; cpu0 has none, cpu300 2,936, default and the gpushare and
  // gpuspec lists 1,052); the multigpu files have no times, so every row: awk 'NR>1' FILE | wc -l
  // (1,088 of them CPU-only).
  const std::vector<std::pair<const char*, std::size_t>> counts = {
      {"cpu0", 6203},       {"cpu037", 6466},     {"cpu050", 6561},      {"cpu072", 6724},
      {"cpu100", 6970},     {"cpu200", 7905},     {"cpu235", 8307},      {"cpu250", 8486},
      {"cpu300", 9139},     {"default", 7255},    {"gpushare100", 6943}, {"gpushare20", 7312},
      {"gpushare40", 7171}, {"gpushare60", 7102}, {"gpushare80", 7006},  {"gpuspec05", 7255},
      {"gpuspec10", 7255},  {"gpuspec20", 7255},  {"gpuspec25", 7255},   {"multigpu20", 8324},
      {"multigpu30", 8508}, {"multigpu40", 8746}};
  for (const auto& [name, n] : counts) {
    INFO(name);
    Trace t = read_openb_trace(dir + "/openb_pod_list_" + name + ".csv", ReadOptions{});
    CHECK(t.jobs.size() == n);
    CHECK(t.skipped == 0);
  }
  Trace d = read_openb_trace(dir + "/openb_pod_list_default.csv", ReadOptions{});
  // Line 2: openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0
  const TraceJob& p0 = job(d, "openb-pod-0000");
  CHECK(p0.duration_s == 12537496);
  CHECK(p0.cpus_per_worker == 12);
  CHECK(p0.mem_gb_per_worker == 16);
  // Line 3: openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061
  const TraceJob& p1 = job(d, "openb-pod-0001");
  CHECK(p1.submit_s == 427061);
  CHECK(p1.duration_s == 12902960 - 427061); // = 12475899
  CHECK(p1.gpu_share_min == Approx(0.46));
  // Line 35: openb-pod-0033,3152,5600,1,1000,,BE,Failed,9965463,9965645,9965463
  const TraceJob& p33 = job(d, "openb-pod-0033");
  CHECK(p33.trace_status == 1);
  CHECK(p33.duration_s == 182); // 9965645 - 9965463
  CHECK(p33.cpus_per_worker == Approx(3.152));
  // Line 50: openb-pod-0048,8000,30517,0,0,,BE,Running,9992086,10013821,9992086, a CPU-only pod:
  // a host task of 8 cores, 30517 / 1024 = 29.8 GB, 10013821 - 9992086 = 21,735 s, no device.
  const TraceJob& p48 = job(d, "openb-pod-0048");
  CHECK(p48.device_type == kNoString);
  CHECK(!p48.observed_on_device_type);
  CHECK(p48.devices_per_worker == 0);
  CHECK(p48.cpus_per_worker == 8);
  CHECK(p48.mem_gb_per_worker == Approx(29.8017578125));
  CHECK(p48.duration_s == 21735);
  Trace s = read_openb_trace(dir + "/openb_pod_list_gpuspec25.csv", ReadOptions{});
  // Line 19: openb-pod-0017,88000,327680,8,1000,G3,Burstable,Succeeded,9437497,10769854,9437497
  CHECK(type_of(s, job(s, "openb-pod-0017")) == "G3");
  CHECK(job(s, "openb-pod-0017").devices_per_worker == 8);
  // Line 37: openb-pod-0035,16000,32768,1,1000,V100M16|V100M32,LS,Running,9967058,9968575,9967063
  const TraceJob& p35 = job(s, "openb-pod-0035");
  CHECK(type_of(s, p35) == "V100");
  CHECK(p35.submit_s == 9967058);
  CHECK(p35.duration_s == 1512); // 9968575 - 9967063
  // Line 552: openb-pod-0550,...,V100M32,LS,Running,10237776,10238556,10237776
  CHECK(type_of(s, job(s, "openb-pod-0550")) == "V100");
  Trace m = read_openb_trace(dir + "/openb_pod_list_multigpu40.csv", ReadOptions{});
  // Line 19: openb-pod-0017,88000,327680,8,1000 (no times)
  CHECK(job(m, "openb-pod-0017").devices_per_worker == 8);
  CHECK(job(m, "openb-pod-0017").duration_s == kOpenbUntimedDurationS);
}

// ---------------------------------------------------------------------------------------------
// pai2020

namespace {

struct PaiDir {
  ScratchDir dir;
  PaiDir() {
    dir.write("pai_job_table.csv", "j1,i1,u1,Terminated,100.0,700.0\n"
                                   "j2,i2,u2,Failed,200.0,1300.0\n"
                                   "j3,i3,u1,Running,300.0,\n"
                                   "j4,i4,u3,Terminated,400.0,500.0\n"
                                   "j5,i5,u1,Terminated,500.0,900.0\n");
    dir.write("pai_task_table.csv", "j1,worker,1.0,Terminated,110.0,700.0,600.0,29.296875,50.0,T4\n"
                                    "j2,ps,2.0,Failed,210.0,1300.0,400.0,8.0,,\n"
                                    "j2,worker,4.0,Failed,220.0,1300.0,800.0,16.0,200.0,V100M32\n"
                                    "j3,worker,1.0,Running,310.0,,600.0,8.0,100.0,P100\n"
                                    "j4,tensorflow,1.0,Terminated,410.0,500.0,600.0,8.0,,\n"
                                    "j5,worker,2.0,Terminated,510.0,510.0,100.0,2.0,25.0,MISC\n");
    dir.write("pai_group_tag_table.csv", "i1,u1,,g1,bert\ni2,u2,P100,g2,\n");
    std::string sensor;
    auto row = [&](const char* job, const char* task, int k, double util) {
      sensor +=
          fmt::format("{},{},w{},i,m,/dev/nvidia0,300.0,{},1.0,2.0,1.0,2.0,10.0,10.0,1.0,1.0\n",
                      job, task, k, util);
    };
    row("j1", "worker", 0, 30);
    for (double u : {120.0, 160.0, 200.0, 80.0})
      row("j2", "worker", 1, u);
    row("j2", "ps", 2, 0);
    dir.write("pai_sensor_table.csv", sensor);
  }
  [[nodiscard]] std::string path() const { return dir.path().string(); }
};

} // namespace

TEST_CASE("pai2020: the tables join into one job per job_name", "[trace][pai2020]") {
  PaiDir pai;
  Trace t = read_pai2020_trace(pai.path(), ReadOptions{});
  REQUIRE(t.jobs.size() == 3); // j3 is still Running, j4 has no GPU task
  const TraceJob& j1 = job(t, "j1");
  CHECK(j1.line == 1);
  CHECK(j1.submit_s == 100);   // the job's start_time is its submission
  CHECK(j1.duration_s == 590); // task end 700 - task start 110
  CHECK(j1.workers == 1);
  CHECK(j1.gpu_share_min == 0.5); // plan_gpu 50 %
  CHECK(j1.cpus_per_worker == 6); // plan_cpu 600 %
  CHECK(j1.mem_gb_per_worker == 29.296875);
  CHECK(type_of(t, j1) == "T4");
  CHECK(j1.gpu_util == Approx(0.3)); // gpu_wrk_util 30 % of one GPU
  CHECK(t.users.at(j1.user) == "u1");
  const TraceJob& j2 = job(t, "j2");
  CHECK(j2.trace_status == 1);
  CHECK(j2.duration_s == 1080); // the worker task's 1300 - 220; the ps task does not count
  CHECK(j2.workers == 4);
  CHECK(j2.devices_per_worker == 2); // plan_gpu 200 %
  CHECK(j2.ps == 2);
  CHECK(type_of(t, j2) == "P100"); // the group tag's gpu_type_spec wins over the assigned V100M32
  // mean(120, 160, 200, 80) = 140 % per instance, of the instance's 2 GPUs: 140 / 200 = 0.7
  CHECK(j2.gpu_util == Approx(0.7));
  const TraceJob& j5 = job(t, "j5");
  CHECK(j5.workers == 2);
  CHECK(j5.gpu_share_min == 0.25);
  CHECK(type_of(t, j5).empty()); // MISC: any GPU
  CHECK(j5.duration_s == 0.5);   // start = end: [0, 1) s
  CHECK(j5.gpu_util == -1);      // no sensor row: the model zoo or the default decides
  CHECK(has_warning(t, "1 jobs skipped: still Running or Waiting"));
  CHECK(has_warning(t, "1 CPU-only jobs skipped"));
}

TEST_CASE("pai2020: optional tables, header rows and the published .header files",
          "[trace][pai2020]") {
  PaiDir pai;
  fs::remove(pai.dir.file("pai_sensor_table.csv"));
  fs::remove(pai.dir.file("pai_group_tag_table.csv"));
  Trace t = read_pai2020_trace(pai.path(), ReadOptions{});
  CHECK(type_of(t, job(t, "j2")) == "V100"); // the assigned V100M32, a V100
  CHECK(job(t, "j2").gpu_util == -1);
  // A first line equal to the published header is skipped; a matching .header file is fine.
  std::string jobs = read_file(pai.dir.file("pai_job_table.csv"));
  pai.dir.write("pai_job_table.csv", "job_name,inst_id,user,status,start_time,end_time\n" + jobs);
  pai.dir.write("pai_job_table.header", "job_name,inst_id,user,status,start_time,end_time\n");
  Trace h = read_pai2020_trace(pai.path(), ReadOptions{});
  CHECK(h.jobs.size() == 3);
  CHECK(job(h, "j1").line == 2);
  pai.dir.write("pai_job_table.header", "job_name,user,status\n");
  CHECK(error_of([&] { read_pai2020_trace(pai.path(), ReadOptions{}); }) ==
        pai.dir.file("pai_job_table.header") +
            ":1: expected the published PAI 2020 columns "
            "'job_name,inst_id,user,status,start_time,end_time', got 'job_name,user,status'");
}

TEST_CASE("pai2020: bad tables name file, line and column", "[trace][pai2020][errors]") {
  PaiDir pai;
  auto err = [&] { return error_of([&] { read_pai2020_trace(pai.path(), ReadOptions{}); }); };
  const std::string jobs = pai.dir.file("pai_job_table.csv");
  const std::string tasks = pai.dir.file("pai_task_table.csv");
  std::string good_jobs = read_file(jobs), good_tasks = read_file(tasks);
  pai.dir.write("pai_task_table.csv",
                good_tasks + "j6,worker,1.0,Terminated,600.0,550.0,100.0,2.0,100.0,T4\n");
  CHECK(err() == tasks + ":7: end_time: goes backwards: 550 is before start_time 600");
  pai.dir.write("pai_task_table.csv",
                good_tasks + "j6,worker,x,Terminated,600.0,650.0,100.0,2.0,100.0,T4\n");
  CHECK(err() == tasks + ":7: inst_num: expected a number, got 'x'");
  pai.dir.write("pai_task_table.csv", good_tasks);
  pai.dir.write("pai_job_table.csv", good_jobs + "j6,i6,u1,Done,600.0,700.0\n");
  CHECK(err() == jobs + ":6: status: expected Terminated, Failed, Running or Waiting, got 'Done'");
  pai.dir.write("pai_job_table.csv", good_jobs + "j6,i6,u1,Terminated\n");
  CHECK(err() == jobs + ":6: expected 6 comma-separated fields "
                        "(job_name,inst_id,user,status,start_time,end_time), got fewer");
  pai.dir.write("pai_job_table.csv", good_jobs + "j1,i1,u1,Terminated,100.0,700.0\n");
  CHECK(err() == jobs + ":6: job_name: duplicate job name 'j1'");
  pai.dir.write("pai_job_table.csv", good_jobs + "j6,i6,u1,Terminated,600.0,550.0\n");
  CHECK(err() == jobs + ":6: end_time: goes backwards: 550 is before start_time 600");
  // Skipping: the bad row is counted, the 3 good jobs stay.
  Trace t = read_pai2020_trace(pai.path(), skipping());
  CHECK(t.jobs.size() == 3);
  CHECK(t.skipped == 1);
  pai.dir.write("pai_job_table.csv", "");
  CHECK(err() == jobs + ": empty file: expected rows of pai_job_table "
                        "(job_name,inst_id,user,status,start_time,end_time)");
  fs::remove(tasks);
  CHECK(err() == pai.path() + ": pai_task_table.csv (or .csv.gz) is missing");
  CHECK(error_of([&] {
          read_pai2020_trace(jobs, ReadOptions{});
        }).find("the pai2020 format reads a directory") != std::string::npos);
}

TEST_CASE("pai2020: the bundled synthetic sample and the real folder", "[trace][pai2020][real]") {
  Trace t = read_pai2020_trace(kSource + "/traces/pai2020-sample", ReadOptions{});
  // 120 jobs - 11 Running or Waiting - 12 without a GPU task = 97 (awk, docs/traces.md).
  CHECK(t.jobs.size() == 97);
  // Job table line 1 and task table line 1 of the sample: plan_gpu 50.0, T4, tensorflow task
  // 1000264.0 to 1015390.0, one sensor row of gpu_wrk_util 25.0.
  const TraceJob& first = job(t, "ec67b2acc821cb4830f954b9");
  CHECK(first.submit_s == 1000179);
  CHECK(first.duration_s == 15126); // 1015390 - 1000264
  CHECK(first.gpu_share_min == 0.5);
  CHECK(first.gpu_util == Approx(0.25));
  const std::string real = kShared + "/alibaba-pai-gpu-v2020";
  REQUIRE_SHARED(real);
  // The real folder holds only the headers and the machine spec: a clear error, no crash.
  CHECK(error_of([&] { read_pai2020_trace(real, ReadOptions{}); }) ==
        real + ": pai_job_table.csv (or .csv.gz) is missing");
  // The published .header files agree with the columns the reader expects.
  ScratchDir copy;
  for (const auto& entry : fs::directory_iterator(kSource + "/traces/pai2020-sample")) {
    if (entry.path().extension() == ".csv")
      fs::copy_file(entry.path(), copy.path() / entry.path().filename());
  }
  for (const char* h :
       {"pai_job_table", "pai_task_table", "pai_group_tag_table", "pai_sensor_table"}) {
    fs::copy_file(real + "/" + h + ".header", copy.path() / (std::string(h) + ".header"));
  }
  CHECK(read_pai2020_trace(copy.path().string(), ReadOptions{}).jobs.size() == 97);
}

// ---------------------------------------------------------------------------------------------
// Clusters from traces

TEST_CASE("cluster from an openb node list", "[cluster][openb]") {
  ScratchDir dir;
  std::string file = dir.write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
                                            "n0,32000,131072,0,\n"
                                            "n1,96000,393216,8,G2\n"
                                            "n2,96000,393216,8,G2\n"
                                            "n3,64000,262144,8,V100M16\n"
                                            "n4,96000,786432,8,V100M32\n");
  Cluster c = load_cluster(openb_cluster_yaml(file), "openb:" + file);
  REQUIRE(c.groups.size() == 4); // CPU, 2 x G2, V100M16, V100M32 (identical nodes grouped)
  CHECK(c.nodes.size() == 5);
  CHECK(c.groups[1].count == 2);
  CHECK(c.groups[1].cpu_cores == 96);  // 96000 milli-cores
  CHECK(c.groups[1].memory_gb == 384); // 393216 MiB / 1024
  // Two host sockets on the CPU node (a node needs a device), none on GPU nodes: openb's CPU-only
  // pods are host tasks that hold cores and memory, no device (docs/runtime.md#host-tasks).
  CHECK(c.count_of_type(*find_device_type(c.types, "XeonCPU")) == 2);
  CHECK(c.count_of_type(*find_device_type(c.types, "G2")) == 16);
  CHECK(c.count_of_type(*find_device_type(c.types, "V100")) == 16); // V100M16 + V100M32
  CHECK(c.groups[3].memory_gb == 768);

  auto err = [&](const std::string& text) {
    return error_of([&] { openb_cluster_yaml(dir.write("n.csv", text)); });
  };
  const std::string f = dir.file("n.csv");
  CHECK(err("sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1024,2,\n") ==
        f + ":2: model: a node with 2 GPUs needs a model");
  CHECK(err("sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1024,0,T4\n") ==
        f + ":2: model: a node with no GPU must have an empty model, got 'T4'");
  CHECK(err("sn,cpu_milli,memory_mib,gpu,model\nn0,0,1024,1,T4\n") ==
        f + ":2: cpu_milli: must be positive, got 0");
  CHECK(err("sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1024,x,T4\n") ==
        f + ":2: gpu: expected an integer, got 'x'");
  CHECK(err("sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1024,1,T4,extra\n") ==
        f + ":2: expected 5 comma-separated fields as in the header, got more");
  CHECK(err("name,cpu_milli\n").find("n.csv") != std::string::npos);
  CHECK(err("").find(": empty file") != std::string::npos);
  CHECK(err("sn,cpu_milli,memory_mib,gpu,model\n") == f + ": the node list has no nodes");
}

TEST_CASE("cluster from the PAI machine spec, and --cluster prefixes", "[cluster][pai2020]") {
  ScratchDir dir;
  std::string file =
      dir.write("spec.csv", "m0,CPU,96,512,0\nm1,MISC,96,512,8\nm2,V100M32,96,384,8\n"
                            "m3,V100,96,384,8\nm4,T4,96,512,2\n");
  Cluster c = load_cluster(pai2020_cluster_yaml(file), "pai2020:" + file);
  CHECK(c.groups.size() == 5); // V100M32 and V100 stay apart (names), both of V100 devices
  CHECK(c.count_of_type(*find_device_type(c.types, "K80")) == 8);   // MISC
  CHECK(c.count_of_type(*find_device_type(c.types, "V100")) == 16); // 8 + 8
  CHECK(c.count_of_type(*find_device_type(c.types, "XeonCPU")) == 2);
  CHECK(c.groups[0].cpu_cores == 96);
  CHECK(c.groups[0].memory_gb == 512);
  // The same file with its header line gives the same cluster.
  std::string with_header =
      dir.write("h.csv", "machine,gpu_type,cap_cpu,cap_mem,cap_gpu\n" + read_file(file));
  CHECK(dump(load_cluster(pai2020_cluster_yaml(with_header), "x")) == dump(c));
  CHECK(error_of([&] { pai2020_cluster_yaml(dir.write("b.csv", "m0,TPU,96,512,8\n")); }) ==
        dir.file("b.csv") +
            ":1: gpu_type: unknown gpu_type 'TPU' (known: CPU, MISC, P100, T4, V100, V100M32)");
  CHECK(error_of([&] { pai2020_cluster_yaml(dir.write("b.csv", "m0,T4,96,512,0\n")); }) ==
        dir.file("b.csv") + ":1: gpu_type: a T4 machine needs cap_gpu > 0");

  auto spec = parse_trace_cluster_spec("pai2020:" + file);
  REQUIRE(spec);
  CHECK(spec->format == "pai2020");
  CHECK(spec->file == file);
  CHECK_FALSE(parse_trace_cluster_spec("configs/clusters/small.yaml"));
  CHECK(error_of([] {
          trace_cluster_yaml({"openb", ""});
        }) == "cluster: openb: expected openb:FILE");
}

TEST_CASE("clusters from the real node lists match the bundled YAMLs", "[cluster][real]") {
  const std::string openb = kShared + "/alibaba-openb-gpu-v2023";
  const std::string pai = kShared + "/alibaba-pai-gpu-v2020/pai_machine_spec.csv";
  REQUIRE_SHARED(openb);
  Cluster gpu = load_cluster(openb_cluster_yaml(openb + "/openb_node_list_gpu_node.csv"), "openb");
  CHECK(gpu.nodes.size() == 1213); // wc -l - 1
  // GPUs by model: awk -F, 'NR>1 {n[$5]+=$4} END {for (m in n) print m, n[m]}':
  // G2 549x8 = 4392; G3 39x8 = 312; A10 2x1 = 2; P100 3x1+107x2+22x2+2x2 = 265;
  // T4 387x2+17x4 = 842; V100M16 19x1+28x4+7x8+1x8 = 195 and V100M32 9x4+21x8 = 204, 399 V100s.
  CHECK(gpu.count_of_kind(DeviceKind::kGpu) == 6212);
  CHECK(gpu.count_of_type(*find_device_type(gpu.types, "G2")) == 4392);
  CHECK(gpu.count_of_type(*find_device_type(gpu.types, "G3")) == 312);
  CHECK(gpu.count_of_type(*find_device_type(gpu.types, "A10")) == 2);
  CHECK(gpu.count_of_type(*find_device_type(gpu.types, "P100")) == 265);
  CHECK(gpu.count_of_type(*find_device_type(gpu.types, "T4")) == 842);
  CHECK(gpu.count_of_type(*find_device_type(gpu.types, "V100")) == 399);
  Cluster all = load_cluster(openb_cluster_yaml(openb + "/openb_node_list_all_node.csv"), "openb");
  CHECK(all.nodes.size() == 1523);
  CHECK(gpu.count_of_type(*find_device_type(gpu.types, "XeonCPU")) == 0); // GPU nodes: none
  // The 310 CPU nodes x 2 sockets (awk -F, 'NR>1 && $4==0' openb_node_list_all_node.csv | wc -l).
  CHECK(all.count_of_type(*find_device_type(all.types, "XeonCPU")) == 620);
  CHECK(dump(gpu) == dump(load_cluster_file(kSource + "/configs/clusters/openb-gpu.yaml")));
  CHECK(dump(all) == dump(load_cluster_file(kSource + "/configs/clusters/openb-all.yaml")));
  REQUIRE_SHARED(pai);
  Cluster p = load_cluster(pai2020_cluster_yaml(pai), "pai2020");
  // 1897 machines: cut -d, -f2 | sort | uniq -c = 83 CPU, 280 MISC, 798 P100, 497 T4, 104 V100,
  // 135 V100M32; cap_gpu 0, 8, 2, 2, 8, 8.
  CHECK(p.nodes.size() == 1897);
  CHECK(p.count_of_type(*find_device_type(p.types, "K80")) == 2240);  // 280 x 8
  CHECK(p.count_of_type(*find_device_type(p.types, "P100")) == 1596); // 798 x 2
  CHECK(p.count_of_type(*find_device_type(p.types, "T4")) == 994);    // 497 x 2
  CHECK(p.count_of_type(*find_device_type(p.types, "V100")) == 1912); // (104 + 135) x 8
  CHECK(p.count_of_type(*find_device_type(p.types, "XeonCPU")) == 166);
  CHECK(dump(p) == dump(load_cluster_file(kSource + "/configs/clusters/pai2020.yaml")));
}

// ---------------------------------------------------------------------------------------------
// End to end: `dlsim validate` on the bundled files and the real ones.

TEST_CASE("validate reads the bundled excerpts of each format", "[cli][trace]") {
  ScratchDir dir;
  // Pods that ran, 18 of them CPU-only:
  // awk -F, 'NR>1 && $11!=""' traces/openb_pod_list_default-excerpt.csv | wc -l = 278
  CHECK_THAT(
      dlsim_stdout("validate --trace traces/openb_pod_list_default-excerpt.csv --format openb "
                   "--cluster configs/clusters/openb-gpu.yaml",
                   dir),
      Catch::Contains("\njobs: 278\n"));
  // Every row (no times), 19 of them CPU-only:
  // awk 'NR>1' traces/openb_pod_list_multigpu20-excerpt.csv | wc -l = 300
  CHECK_THAT(
      dlsim_stdout("validate --trace traces/openb_pod_list_multigpu20-excerpt.csv --format openb "
                   "--cluster openb:traces/openb_node_list_gpu_node-excerpt.csv",
                   dir),
      Catch::Contains("\njobs: 300\n"));
  // grep -vc '^;' traces/ricc-2010-2-excerpt.swf = 300
  CHECK_THAT(dlsim_stdout("validate -e configs/experiments/ricc-swf.yaml", dir),
             Catch::Contains("\njobs: 300\n"));
  CHECK_THAT(dlsim_stdout("validate --trace traces/pai2020-sample --format pai2020 "
                          "--cluster pai2020:traces/pai2020-sample/pai_machine_spec.csv",
                          dir),
             Catch::Contains("\njobs: 97\n"));
}

TEST_CASE("validate reads the real RICC log and openb lists", "[cli][trace][real]") {
  const std::string swf = kShared + "/swf/RICC-2010-2.swf.gz";
  REQUIRE_SHARED(swf);
  ScratchDir dir;
  std::string out =
      dlsim_stdout("validate -e configs/experiments/ricc-swf.yaml --trace '" + swf + "'", dir);
  CHECK_THAT(out, Catch::Contains("\njobs: 447794\n"));
  CHECK_THAT(out, Catch::Contains("\nskipped_bad_jobs: 0\n"));
  const std::string openb = kShared + "/alibaba-openb-gpu-v2023";
  CHECK_THAT(dlsim_stdout("validate --trace '" + openb +
                              "/openb_pod_list_default.csv' --format openb "
                              "--cluster 'openb:" +
                              openb + "/openb_node_list_gpu_node.csv'",
                          dir),
             Catch::Contains("\njobs: 7255\n")); // 6,203 GPU and 1,052 CPU-only pods
}
