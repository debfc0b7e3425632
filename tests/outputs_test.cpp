// The optional result files, end to end: events.csv (and what it lets a user find out) and
// timeline.json (Chrome trace format).
#include "tests/support/harness.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace dlsim::test;

namespace {

struct EventRow {
  double time;
  std::string job, action;
  std::vector<int> devices;
  std::string nodes, reason;
};

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, sep))
    out.push_back(field);
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

// events.csv of a run whose ids and reasons have no commas or quotes (checked).
std::vector<EventRow> read_events(const std::string& path) {
  std::istringstream in(read_file(path));
  std::string line;
  std::getline(in, line);
  REQUIRE(line == "time_s,job,action,devices,nodes,reason");
  std::vector<EventRow> rows;
  while (std::getline(in, line)) {
    REQUIRE(line.find('"') == std::string::npos);
    auto f = split(line, ',');
    REQUIRE(f.size() == 6);
    EventRow r{std::stod(f[0]), f[1], f[2], {}, f[4], f[5]};
    for (const auto& d : split(f[3], ' '))
      r.devices.push_back(std::stoi(d));
    rows.push_back(r);
  }
  return rows;
}

bool acquires(const std::string& a) {
  return a == "start" || a == "pack" || a == "slice" || a == "resume" || a == "bind";
}
bool releases(const std::string& a) {
  return a == "finish" || a == "suspended" || a == "cancel" || a == "unbind";
}

// Who kept `job` waiting, from the event log alone. Replays device occupancy: if at some moment
// while the job waited enough devices were free for it, it was held back by queue order, and the
// blocker is the earliest-submitted job then still waiting (the head of the line). Otherwise it
// waited for devices, and the blockers are the jobs whose release at its start time freed the
// devices it got.
std::set<std::string> blockers_of(const std::vector<EventRow>& rows, const std::string& job,
                                  int cluster_devices) {
  double submit = -1, start = -1;
  std::size_t need = 0;
  std::set<int> got;
  for (const auto& r : rows) {
    if (r.job != job) continue;
    if (r.action == "submit") submit = r.time;
    if (r.action == "start" && start < 0) {
      start = r.time;
      need = r.devices.size();
      got.insert(r.devices.begin(), r.devices.end());
    }
  }
  REQUIRE(submit >= 0);
  REQUIRE(start > submit);
  std::set<int> busy;
  std::vector<std::string> waiting; // in submission order
  std::size_t i = 0;
  while (i < rows.size() && rows[i].time < start) {
    double t = rows[i].time;
    for (; i < rows.size() && rows[i].time == t; ++i) {
      const auto& r = rows[i];
      if (r.action == "submit") waiting.push_back(r.job);
      if (acquires(r.action)) {
        busy.insert(r.devices.begin(), r.devices.end());
        waiting.erase(std::remove(waiting.begin(), waiting.end(), r.job), waiting.end());
      }
      if (releases(r.action)) {
        for (int d : r.devices)
          busy.erase(d);
      }
    }
    if (t >= submit && cluster_devices - busy.size() >= need) return {waiting.front()};
  }
  std::set<std::string> out;
  for (const auto& r : rows) {
    if (r.time != start || !releases(r.action)) continue;
    for (int d : r.devices)
      if (got.count(d)) out.insert(r.job);
  }
  return out;
}

} // namespace

TEST_CASE("events.csv alone tells which job blocked another under FIFO", "[outputs][events]") {
  ScratchDir dir;
  dir.write("four.yaml", "nodes:\n  - {count: 1, devices: {V100: 4}}\n");
  // a takes 3 of the 4 GPUs for 0-100 s. b (2 GPUs, at 10 s) does not fit until a finishes.
  // c (1 GPU, at 20 s) would fit on the free GPU, but FIFO keeps it behind b (head-of-line
  // blocking). At 100 s a's 3 GPUs free: b starts on two of them, then c: b ends at
  // 100 + 50 = 150 s, c at 100 + 30 = 130 s.
  dir.write("t.csv", "id,submit_s,workers,duration_s\na,0,3,100\nb,10,2,50\nc,20,1,30\n");
  Outcome r = run_dlsim("run -q --policy fifo --cluster " + dir.file("four.yaml") + " --trace " +
                            dir.file("t.csv") + " --out " + dir.file("res"),
                        dir);
  REQUIRE(r.code == 0);
  auto rows = read_events(dir.file("res/events.csv"));
  // submit, start, finish for each of 3 jobs (no start cost, so no `running` row).
  REQUIRE(rows.size() == 9);
  CHECK(rows[0].job == "a");
  CHECK(rows[0].action == "submit");
  CHECK(rows[1].action == "start");
  CHECK(rows[1].devices == std::vector<int>{0, 1, 2});
  CHECK(rows[1].nodes == "0");
  std::map<std::string, double> finish;
  for (const auto& e : rows)
    if (e.action == "finish") finish[e.job] = e.time;
  CHECK(finish == std::map<std::string, double>{{"a", 100}, {"b", 150}, {"c", 130}});

  CHECK(blockers_of(rows, "b", 4) == std::set<std::string>{"a"}); // waited for a's devices
  CHECK(blockers_of(rows, "c", 4) == std::set<std::string>{"b"}); // held behind b

  // jobs.csv of the same run: slowdown = jct / solo, solo = the trace's duration on V100 (the
  // reference device). a: 100 / 100 = 1; b: (150 - 10) / 50 = 2.8; c: (130 - 20) / 30 =
  // 3.666667 (rounded to 6 decimals).
  std::istringstream jobs(read_file(dir.file("res/jobs.csv")));
  std::string line;
  std::getline(jobs, line);
  CHECK(line == "id,submit_s,first_start_s,finish_s,jct_s,queue_s,run_s,gpus,nodes,preemptions,"
                "migrations,status,model,user,queue,device_type,device_kind,devices,solo_s,"
                "slowdown");
  std::vector<std::string> tails;
  while (std::getline(jobs, line))
    tails.push_back(line.substr(line.find(",finished,") + 10));
  // No model, user or queue in this trace: empty (model) or the reader's defaults.
  REQUIRE(tails.size() == 3);
  CHECK_THAT(tails[0], Catch::EndsWith(",V100,gpu,3,100,1"));
  CHECK_THAT(tails[1], Catch::EndsWith(",V100,gpu,2,50,2.8"));
  CHECK_THAT(tails[2], Catch::EndsWith(",V100,gpu,1,30,3.666667"));
}

TEST_CASE("solo_s of a job that accepts a set of types", "[outputs][hetero]") {
  ScratchDir dir;
  // Two custom GPU types, slow at half and fast at twice the reference V100's throughput.
  dir.write("c.yaml", "device_types:\n"
                      "  slow: {kind: gpu, rel_throughput: 0.5}\n"
                      "  fast: {kind: gpu, rel_throughput: 2}\n"
                      "nodes:\n  - {count: 1, devices: {V100: 1, slow: 1, fast: 1}}\n");
  // Model-less jobs: one iteration is one second on the V100, so on a type of relative
  // throughput r an iteration takes 1/r s. a accepts V100|slow: the set holds the reference,
  // solo = its duration, 100 s. b accepts slow|fast, measured on the V100 for 100 iterations:
  // solo on the set's fastest type, 100 x 1/2 = 50 s. c (slow only) = 100 x 1/0.5 = 200 s.
  dir.write("t.csv", "id,submit_s,workers,duration_s,device_type\n"
                     "a,0,1,100,V100|slow\nb,0,1,100,slow|fast\nc,0,1,100,slow\n");
  Outcome r = run_dlsim("run -q --policy fifo --cluster " + dir.file("c.yaml") + " --trace " +
                            dir.file("t.csv") + " --out " + dir.file("res"),
                        dir);
  REQUIRE(r.code == 0);
  std::istringstream jobs(read_file(dir.file("res/jobs.csv")));
  std::string line;
  std::getline(jobs, line);
  std::map<std::string, std::string> solo;
  while (std::getline(jobs, line)) {
    std::vector<std::string> f;
    std::istringstream row(line);
    for (std::string x; std::getline(row, x, ',');)
      f.push_back(x);
    REQUIRE(f.size() == 20);
    solo[f[0]] = f[18];
  }
  CHECK(solo == std::map<std::string, std::string>{{"a", "100"}, {"b", "50"}, {"c", "200"}});
}

TEST_CASE("a job that ran alone has run_s equal to solo_s on any device", "[outputs][hetero]") {
  ScratchDir dir;
  dir.write("c.yaml", "device_types:\n  third: {kind: gpu, rel_throughput: 3}\n"
                      "nodes:\n  - {count: 1, devices: {third: 1}}\n");
  // 100 s on the reference V100 at three times its throughput: 33.3333333... s. The runtime
  // times the finish at the next microsecond, 33.333334 s, and solo_s is rounded the same way
  // (it was rounded to the nearest, 33.333333 s: the job ran 1 µs longer than alone).
  dir.write("t.csv", "id,submit_s,workers,duration_s,device_type\na,0,1,100,third\n");
  REQUIRE(run_dlsim("run -q --policy fifo --cluster " + dir.file("c.yaml") + " --trace " +
                        dir.file("t.csv") + " --out " + dir.file("res"),
                    dir)
              .code == 0);
  std::istringstream jobs(read_file(dir.file("res/jobs.csv")));
  std::string line;
  std::getline(jobs, line);
  std::getline(jobs, line);
  std::vector<std::string> f;
  std::istringstream row(line);
  for (std::string x; std::getline(row, x, ',');)
    f.push_back(x);
  REQUIRE(f.size() == 20);
  CHECK(f[6] == "33.333334");  // run_s
  CHECK(f[18] == "33.333334"); // solo_s
  CHECK(f[19] == "1");         // slowdown
}

TEST_CASE("jobs.csv and events.csv quote a job id that holds a comma or a quote",
          "[outputs][csv]") {
  ScratchDir dir;
  dir.write("one.yaml", "nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  // The trace quotes the ids as RFC 4180 does; the outputs must too, not split them.
  dir.write("t.csv", "id,submit_s,workers,duration_s\n\"a,b\",0,1,10\n\"say \"\"hi\"\"\",0,1,5\n");
  REQUIRE(run_dlsim("run -q --policy fifo --cluster " + dir.file("one.yaml") + " --trace " +
                        dir.file("t.csv") + " --out " + dir.file("res"),
                    dir)
              .code == 0);
  std::string jobs = read_file(dir.file("res/jobs.csv"));
  CHECK_THAT(jobs, Catch::Contains("\n\"a,b\",0,0,10,10,0,10,1,1,0,0,finished,"));
  CHECK_THAT(jobs, Catch::Contains("\n\"say \"\"hi\"\"\",0,10,15,15,10,5,1,1,0,0,finished,"));
  std::string events = read_file(dir.file("res/events.csv"));
  CHECK_THAT(events, Catch::Contains("\n0,\"a,b\",start,0,0,\n"));
}

TEST_CASE("events.csv: off on request, and a reused directory keeps no stale one",
          "[outputs][events]") {
  ScratchDir dir;
  REQUIRE(run_dlsim("run -q --until 3600 --out " + dir.file("res"), dir).code == 0);
  REQUIRE(std::filesystem::exists(dir.file("res/events.csv")));
  REQUIRE(run_dlsim("run -q --until 3600 --events off --out " + dir.file("res"), dir).code == 0);
  CHECK_FALSE(std::filesystem::exists(dir.file("res/events.csv")));
  Outcome bad = run_dlsim("run -q --events maybe --out " + dir.file("res"), dir);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--events expects auto, on or off, got 'maybe'"));
}

namespace {

// jobs.csv as rows of column name -> text (ids here have no commas).
std::vector<std::map<std::string, std::string>> read_jobs(const std::string& path) {
  std::istringstream in(read_file(path));
  std::string line;
  std::getline(in, line);
  auto header = split(line, ',');
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    auto f = split(line, ',');
    REQUIRE(f.size() == header.size());
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < f.size(); ++i)
      row[header[i]] = f[i];
    rows.push_back(row);
  }
  return rows;
}

long long micros(const std::string& seconds) {
  return std::llround(std::stod(seconds) * 1e6);
}

} // namespace

TEST_CASE("the default experiment's timeline.json is Chrome-trace JSON that matches jobs.csv",
          "[outputs][timeline]") {
  ScratchDir dir;
  REQUIRE(run_dlsim("run -q --out " + dir.file("res"), dir).code == 0);
  auto trace = nlohmann::json::parse(read_file(dir.file("res/timeline.json")));
  REQUIRE(trace["traceEvents"].is_array());
  const auto& events = trace["traceEvents"];
  auto jobs = read_jobs(dir.file("res/jobs.csv"));
  REQUIRE(jobs.size() == 500);

  // Metadata: the cluster process (counters) and one per node (4 nodes of 8 GPUs), and one
  // named track per device (32).
  int processes = 0, tracks = 0;
  std::map<long long, long long> pid_of_tid;
  for (const auto& e : events) {
    if (e["ph"] != "M") continue;
    if (e["name"] == "process_name") ++processes;
    if (e["name"] == "thread_name") {
      ++tracks;
      pid_of_tid[e["tid"]] = e["pid"];
    }
  }
  CHECK(processes == 1 + 4);
  CHECK(tracks == 32);

  // One slice per job and device: FIFO never preempts, so each job occupies its `gpus` devices
  // once, from first_start_s to finish_s (timestamps in microseconds).
  std::map<std::string, std::vector<const nlohmann::json*>> slices;
  std::size_t total = 0;
  for (const auto& e : events) {
    if (e["ph"] != "X") continue;
    slices[e["name"]].push_back(&e);
    ++total;
  }
  std::size_t gpus = 0;
  for (const auto& job : jobs) {
    REQUIRE(job.at("preemptions") == "0");
    std::size_t n = std::stoul(job.at("gpus"));
    gpus += n;
    const auto& mine = slices[job.at("id")];
    REQUIRE(mine.size() == n);
    std::set<long long> devices;
    for (const auto* e : mine) {
      CHECK((*e)["ts"].get<long long>() == micros(job.at("first_start_s")));
      CHECK((*e)["dur"].get<long long>() ==
            micros(job.at("finish_s")) - micros(job.at("first_start_s")));
      long long tid = (*e)["tid"];
      CHECK(pid_of_tid.at(tid) == (*e)["pid"].get<long long>()); // on its device's node
      devices.insert(tid);
    }
    CHECK(devices.size() == n); // distinct devices
  }
  CHECK(total == gpus);

  // Counters: the queue and GPUs at each change; at the end nothing runs or waits.
  const nlohmann::json* last_jobs = nullptr;
  int counters = 0;
  for (const auto& e : events) {
    if (e["ph"] != "C") continue;
    ++counters;
    if (e["name"] == "jobs") {
      CHECK(e["args"]["running"].get<int>() <= 32);
      last_jobs = &e;
    }
  }
  REQUIRE(last_jobs != nullptr);
  CHECK((*last_jobs)["args"]["pending"] == 0);
  CHECK((*last_jobs)["args"]["running"] == 0);
  CHECK(counters % 2 == 0); // "jobs" and "gpus" go in pairs
}
