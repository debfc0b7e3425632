// Host tasks (docs/runtime.md#host-tasks): jobs of 0 devices per worker that hold a node's CPU
// cores and memory. Every expected number is worked out in the comment above it.
#include "sim/engine/error.h"
#include "sim/report/event_log.h"
#include "sim/report/metrics.h"
#include "sim/report/summary.h"
#include "tests/support/scripted_run.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// One node of 32 cores and 256 GB, with one V100 (a node needs a device).
constexpr const char* kNode32 =
    "nodes:\n  - {count: 1, devices: {V100: 1}, cpu_cores: 32, memory_gb: 256}\n";
constexpr const char* kTwoNodes32 =
    "nodes:\n  - {count: 2, devices: {V100: 1}, cpu_cores: 32, memory_gb: 64}\n";

// Four tasks of 10 cores and 8 GB, submitted at 0, running 100, 200, 300 and 50 s.
constexpr const char* kFourPods =
    "id,submit_s,workers,duration_s,cpus_per_worker,mem_gb_per_worker\n"
    "p1,0,1,100,10,8\n"
    "p2,0,1,200,10,8\n"
    "p3,0,1,300,10,8\n"
    "p4,0,1,50,10,8\n";

// The native reader asks for devices; a host task is the same request with 0 devices per worker
// (what the openb reader makes of a CPU-only pod).
Workload as_host_tasks(const Cluster& cluster, const std::string& csv,
                       const std::vector<std::string>& names) {
  Workload w = workload_from_csv(cluster, csv);
  for (const auto& name : names)
    w.jobs[job_named(w, name)].request.devices_per_worker = 0;
  return w;
}

double start_s(const SimState& s, const Workload& w, const std::string& name) {
  return to_seconds(s.jobs[job_named(w, name)].first_start);
}
double end_s(const SimState& s, const Workload& w, const std::string& name) {
  return to_seconds(s.jobs[job_named(w, name)].end);
}

// Field `index` of jobs.csv's row for job `id`, as text.
std::string field_of(const std::string& jobs_csv, const std::string& id, int index) {
  std::istringstream in(jobs_csv);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(id + ",", 0) != 0) continue;
    std::istringstream fields(line);
    std::string f;
    for (int i = 0; i <= index; ++i)
      std::getline(fields, f, ',');
    return f;
  }
  return "(no row)";
}

} // namespace

TEST_CASE("host tasks: three of 10 cores run together on a 32-core node, a fourth waits",
          "[runtime][host]") {
  Cluster c = cluster_from_yaml(kNode32);
  Workload w = as_host_tasks(c, kFourPods, {"p1", "p2", "p3", "p4"});
  RunOutput out = run_policy("fifo", c, w);
  REQUIRE(out.result.unfinished == 0);
  // p1, p2, p3 take 30 of the 32 cores at 0; p4 needs 10 of the 2 left and waits for p1, which
  // ends at 100: p4 runs 100-150 at its observed rate (50 s of work, nothing shares a device).
  CHECK(start_s(out.state, w, "p3") == 0);
  CHECK(end_s(out.state, w, "p1") == 100);
  CHECK(end_s(out.state, w, "p2") == 200);
  CHECK(end_s(out.state, w, "p3") == 300);
  CHECK(start_s(out.state, w, "p4") == 100);
  CHECK(end_s(out.state, w, "p4") == 150);
  // No device: none held, none counted as GPU time.
  CHECK(out.gpu_util_alloc == 0);
  CHECK(out.state.jobs[job_named(w, "p4")].attained == 0);
  CHECK(out.state.cores_held == Approx(0).margin(1e-9)); // all given back
}

TEST_CASE("host tasks: every policy places them, and never more than the cores allow",
          "[runtime][host][policy]") {
  // The four tasks above and a GPU job (of ResNet-50, for the policies that read a model)
  // that needs the V100 and 2 cores. Whatever the policy, at
  // most three tasks fit at once (3 x 10 + 2 = 32 cores), so p4 cannot start before a task ends
  // (100 s at the earliest; the invariant checker also checks every node's ledger), and every
  // job finishes.
  Cluster c = cluster_from_yaml(kNode32);
  Workload w = as_host_tasks(c,
                             "id,submit_s,workers,duration_s,cpus_per_worker,mem_gb_per_worker,"
                             "model\n"
                             "p1,0,1,100,10,8,\np2,0,1,200,10,8,\np3,0,1,300,10,8,\n"
                             "p4,0,1,50,10,8,\ng,0,1,100,2,8,resnet50\n",
                             {"p1", "p2", "p3", "p4"});
  for (const auto& entry : policy_registry()) {
    // automl runs the trials of a sessions file, util-proactive needs a trained predictor file,
    // external a scheduler's command (tests/external_policy_test.sh runs it).
    if (entry.name == "automl" || entry.name == "util-proactive" || entry.name == "external")
      continue;
    INFO(entry.name);
    // aiturbo reads a trained classifier's text ("": the stability rule alone); hot-spares
    // keeps no spare of the one node (a pool of every node is refused).
    const char* params = entry.name == "aiturbo"      ? "{classifier: ''}"
                         : entry.name == "hot-spares" ? "{spare_nodes: 0}"
                                                      : "{}";
    RunOutput out = run_policy(entry, c, w, YAML::Load(params));
    CHECK(out.result.unfinished == 0);
    int started_at_zero = 0;
    for (const char* p : {"p1", "p2", "p3", "p4"})
      started_at_zero += start_s(out.state, w, p) == 0 ? 1 : 0;
    CHECK(started_at_zero <= 3);
  }
}

namespace {

// The nodes column of events.csv's row at "time_s action" (e.g. "40 suspended"), or
// "(no such row)".
std::string event_nodes(const std::string& csv, const std::string& time_action) {
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    // time_s,job,action,devices,nodes,reason
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');)
      f.push_back(x);
    f.resize(6);
    if (f[0] + " " + f[2] == time_action) return f[4];
  }
  return "(no such row)";
}

} // namespace

TEST_CASE("host tasks: placed on nodes, preempted, resumed where they fit", "[runtime][host]") {
  RuntimeConfig cfg;
  cfg.costs.suspend_s = 0;
  cfg.costs.resume_s = 2;
  // h: two workers of 12 cores and 16 GB, 100 s of work. Started on nodes 0 and 1 at 0,
  // suspended at 40 (40 s done), resumed at 50 on View::host_fit's nodes: first fit in node id
  // order puts both on node 0 (24 <= 32 cores, 32 <= 64 GB). Resume costs 2 s: running from 52,
  // the 60 s left end at 112.
  ScriptedRun s(kTwoNodes32,
                "id,submit_s,workers,duration_s,cpus_per_worker,mem_gb_per_worker\n"
                "h,0,2,100,12,16\n",
                {{0,
                  [](Control& ctl) {
                    ctl.start_on_nodes(0, std::vector<NodeId>{0, 1});
                  }},
                 {10'000'000,
                  [](Control& ctl) {
                    CHECK(std::ranges::equal(ctl.hosts(0), std::vector<NodeId>{0, 1}));
                    CHECK(ctl.node_cpu_free(0) == 20); // 32 - 12
                    CHECK(ctl.node_mem_free(1) == 48); // 64 - 16
                    CHECK(ctl.state(0).nodes_used == 2);
                  }},
                 {40'000'000, [](Control& ctl) { ctl.suspend(0); }},
                 {45'000'000,
                  [](Control& ctl) {
                    CHECK(ctl.hosts(0).empty());
                    CHECK(ctl.node_cpu_free(0) == 32);
                    CHECK(ctl.host_fit(0) == std::vector<NodeId>{0, 0});
                  }},
                 {50'000'000, [](Control& ctl) { ctl.resume(0, {}); }}},
                cfg);
  s.workload.jobs[0].request.devices_per_worker = 0;
  EventLog log;
  s.sim->add_observer(&log);
  s.run();
  CHECK(s.job("h").end == 112'000'000);
  CHECK(s.job("h").run_time == 100'000'000);
  CHECK(s.job("h").preemptions == 1);
  CHECK(s.job("h").nodes_used == 1);
  CHECK(s.sim->state().hosts_of(0).empty());
  CHECK(s.sim->state().extras.empty()); // its nodes were its only entry
  // events.csv names the nodes a host task holds: both nodes from its start to its suspension,
  // node 0 alone from its resume to its finish; none when it holds nothing (its submission).
  std::ostringstream events;
  log.write_csv(events, s.cluster, s.workload);
  const auto nodes_of = [&](const std::string& time_action) {
    return event_nodes(events.str(), time_action);
  };
  CHECK(nodes_of("0 submit").empty());
  CHECK(nodes_of("0 start") == "0 1");
  CHECK(nodes_of("40 suspended") == "0 1");
  CHECK(nodes_of("50 resume") == "0");
  CHECK(nodes_of("112 finish") == "0");
}

TEST_CASE("host tasks: actions refused with a reason", "[runtime][host]") {
  auto refused = [&](std::function<void(Control&)> act) {
    ScriptedRun r(kTwoNodes32,
                  "id,submit_s,workers,duration_s,cpus_per_worker,mem_gb_per_worker\n"
                  "h,0,2,100,20,16\n",
                  {{0, std::move(act)}});
    r.workload.jobs[0].request.devices_per_worker = 0;
    try {
      r.run();
    } catch (const ActionError& e) {
      return std::string(e.what());
    }
    return std::string("(not refused)");
  };
  // Two workers of 20 cores on node 0: 40 > 32.
  CHECK_THAT(refused([](Control& ctl) {
               ctl.start_on_nodes(0, std::vector<NodeId>{0, 0});
             }),
             Catch::Contains("node 0 has 32 free CPU cores, 40 needed"));
  CHECK_THAT(refused([](Control& ctl) { ctl.start_on_nodes(0, std::vector<NodeId>{0}); }),
             Catch::Contains("1 node(s) given for a host task of 2 workers"));
  CHECK_THAT(refused([](Control& ctl) {
               ctl.start_on_nodes(0, std::vector<NodeId>{0, 7});
             }),
             Catch::Contains("node 7 does not exist"));
  CHECK_THAT(refused([](Control& ctl) { ctl.start(0, std::vector<DeviceId>{0}); }),
             Catch::Contains("1 device(s) given for a host task"));
  CHECK_THAT(refused([](Control& ctl) {
               ctl.start_on_nodes(0, std::vector<NodeId>{0, 1});
               ctl.migrate(0, std::vector<DeviceId>{1});
             }),
             Catch::Contains("a host task holds no devices"));
  CHECK_THAT(refused([](Control& ctl) { ctl.bind(0, std::vector<DeviceId>{0}); }),
             Catch::Contains("a host task holds no devices"));
}

TEST_CASE("host tasks: openb CPU pods in jobs.csv and summary.json", "[trace][openb][host]") {
  ScratchDir dir;
  // The four tasks of the first case as openb pods (10,000 milli-cores, 8 GB), with the node of
  // 32 cores: c1..c3 run at 0, c4 waits until 100 and ends at 150. Core-seconds held:
  // 10 x (100 + 200 + 300 + 50) = 6,500 over 32 cores x 300 s of makespan = 0.677083.
  std::string pods =
      dir.write("pods.csv",
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                "deletion_time,scheduled_time\n"
                "c1,10000,8192,0,0,,BE,Running,0,100,0\n"
                "c2,10000,8192,0,0,,BE,Running,0,200,0\n"
                "c3,10000,8192,0,0,,BE,Running,0,300,0\n"
                "c4,10000,8192,0,0,,BE,Running,0,50,0\n");
  std::string cluster = dir.write("n.yaml", kNode32);
  auto r = run_dlsim("run --trace " + pods + " --format openb --cluster " + cluster +
                         " --policy fifo -q --out " + dir.file("out"),
                     dir);
  REQUIRE(r.code == 0);
  std::string jobs = read_file(dir.file("out/jobs.csv"));
  // id,submit_s,first_start_s,finish_s,jct_s,queue_s,run_s,gpus,nodes,...,device_type (15),
  // device_kind (16), devices (17)
  CHECK(field_of(jobs, "c4", 2) == "100");
  CHECK(field_of(jobs, "c4", 3) == "150");
  CHECK(field_of(jobs, "c4", 6) == "50");
  CHECK(field_of(jobs, "c4", 7) == "0");
  CHECK(field_of(jobs, "c4", 8) == "1");
  CHECK(field_of(jobs, "c4", 15).empty());
  CHECK(field_of(jobs, "c4", 16) == "host");
  CHECK(field_of(jobs, "c4", 17) == "0");
  auto summary = nlohmann::json::parse(read_file(dir.file("out/summary.json")));
  CHECK(summary["makespan_s"] == 300);
  CHECK(summary["gpu_util_alloc"] == 0);
  CHECK(summary["cpu_cores"]["host_tasks"] == 4);
  CHECK(summary["cpu_cores"]["cores"] == 32);
  CHECK(summary["cpu_cores"]["alloc"].get<double>() == Approx(6500.0 / (32 * 300)));
}

TEST_CASE("host tasks: a pod asking more than any node has is an error naming the largest node",
          "[trace][openb][host][errors]") {
  ScratchDir dir;
  // The largest node has 96 cores and 512 GB: a pod of 128 cores fits nowhere, nor one of
  // 600 GB (614,400 MiB).
  std::string cluster = dir.write(
      "n.yaml", "nodes:\n  - {count: 2, devices: {V100: 1}, cpu_cores: 32, memory_gb: 64}\n"
                "  - {count: 1, devices: {XeonCPU: 2}, cpu_cores: 96, memory_gb: 512}\n");
  const std::string header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                             "creation_time,deletion_time,scheduled_time\n";
  std::string cores = dir.write("cores.csv", header + "ok,8000,1024,0,0,,BE,Running,0,10,0\n"
                                                      "big,128000,1024,0,0,,BE,Running,0,10,0\n");
  auto r = run_dlsim("validate --trace " + cores + " --format openb --cluster " + cluster, dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("cores.csv:3:"));
  CHECK_THAT(r.err, Catch::Contains("job 'big'"));
  CHECK_THAT(r.err, Catch::Contains("needs 128 CPU cores on one node; the largest node has 96 "
                                    "cores (512 GB)"));
  std::string memory = dir.write("mem.csv", header + "huge,8000,614400,0,0,,BE,Running,0,10,0\n");
  r = run_dlsim("validate --trace " + memory + " --format openb --cluster " + cluster, dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("mem.csv:2:"));
  CHECK_THAT(r.err, Catch::Contains("needs 600 GB of memory on one node; the largest node has "
                                    "512 GB (96 cores)"));
}
