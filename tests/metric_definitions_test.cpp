// The definitions of docs/outputs.md where a figure could mislead: the queueing delay counts all
// the time a job spends without progress (a time-sliced job's wait for the other jobs' turns, a
// preempted job's time suspended), Jain's index is left out when there are not two users to
// compare, and the effective utilization of jobs whose utilization is assumed says so. Every
// expected number is worked out in the comment above it.
#include "tests/support/harness.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

constexpr const char* kOneGpu = "nodes:\n  - {count: 1, devices: {V100: 1}}\n";
constexpr const char* kTwoGpus = "nodes:\n  - {count: 1, devices: {V100: 2}}\n";

// Runs `dlsim run -q` on the cluster and trace text with the extra flags into dir/out.
Outcome run(const ScratchDir& dir, const std::string& cluster, const std::string& trace,
            const std::string& flags, const std::string& out) {
  dir.write(out + ".yaml", cluster);
  dir.write(out + ".csv", trace);
  return run_dlsim("run " + flags + " --cluster " + dir.file(out + ".yaml") + " --trace " +
                       dir.file(out + ".csv") + " --out " + dir.file(out),
                   dir);
}

nlohmann::json summary(const ScratchDir& dir, const std::string& out) {
  return nlohmann::json::parse(read_file(dir.file(out + "/summary.json")));
}

// jobs.csv as id -> column -> text.
std::map<std::string, std::map<std::string, std::string>> jobs_csv(const ScratchDir& dir,
                                                                   const std::string& out) {
  std::istringstream in(read_file(dir.file(out + "/jobs.csv")));
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream s(line);
    while (std::getline(s, cell, ','))
      cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    return cells;
  };
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line);
  std::map<std::string, std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split(line);
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i)
      rows[cells[0]][header[i]] = cells[i];
  }
  return rows;
}

double number(const std::string& text) {
  return std::stod(text);
}

} // namespace

TEST_CASE("queueing delay counts the other jobs' turns and the time suspended",
          "[metrics][queue]") {
  ScratchDir dir;
  const std::string xy = "id,submit_s,workers,duration_s\nx,0,1,100\ny,0,1,50\n";

  // Gandiva, fluid time-slicing (the default), packing off so that the two only take turns; 60 s
  // slices, 1 s switches. Both are placed at 0, each at (1 - 1/60) / 2 = 59/120 of its speed. y's
  // 50 s of work end at 50 x 120/59 = 101.694915 s, rounded up to the microsecond: 101.694916.
  // Its turns: 101.694916 x (1 - 59/120) = 101.694916 x 61/120 = 51.694916 s; its progress
  // 101.694916 - 51.694916 = 50 s (its work): queue_s = JCT - progress = 51.694916. x has done
  // 101.694916 x 59/120 = 50.0000004 s of work by then and runs its last 49.9999996 s alone:
  // it ends at 151.694916 s; run_s 151.694916, the same turns, progress 100: queue_s 51.694916.
  // The wait before the first start is 0 for both: the figure this replaces, which read 0.
  Outcome fluid =
      run(dir, kOneGpu, xy, "-q --policy gandiva --set policy.params.packing=false", "fluid");
  REQUIRE(fluid.code == 0);
  auto jobs = jobs_csv(dir, "fluid");
  CHECK(jobs["y"]["first_start_s"] == "0");
  CHECK(jobs["x"]["first_start_s"] == "0");
  CHECK(jobs["y"]["finish_s"] == "101.694916");
  CHECK(jobs["y"]["run_s"] == "101.694916");
  CHECK(jobs["y"]["queue_s"] == "51.694916");
  CHECK(jobs["x"]["finish_s"] == "151.694916");
  CHECK(jobs["x"]["queue_s"] == "51.694916");
  nlohmann::json s = summary(dir, "fluid");
  CHECK(s["queue_mean_s"] == 51.694916);
  CHECK(s["queue_median_s"] == 51.694916);

  // The same turns simulated as suspend and resume (exact_slices; a switch = suspend_s 1 s +
  // resume_s 0 s): x runs 0-60, is suspended 60-61 (paying) and waits 61-111 while y runs
  // 61-111; x resumes at 111 and runs its last 40 s: ends at 151. x: JCT 151, progress 60 + 40 =
  // 100, queue 51; y: JCT 111, progress 50, queue 61 (all before its first start). Mean
  // (51 + 61) / 2 = 56: within one slice of the fluid figure for each job (|61 - 51.69| < 60).
  Outcome exact = run(dir, kOneGpu, xy,
                      "-q --policy gandiva --set policy.params.exact_slices=true "
                      "--set costs.suspend_s=1 --set costs.resume_s=0",
                      "exact");
  REQUIRE(exact.code == 0);
  jobs = jobs_csv(dir, "exact");
  CHECK(jobs["x"]["finish_s"] == "151");
  CHECK(jobs["x"]["queue_s"] == "51");
  CHECK(jobs["y"]["first_start_s"] == "61");
  CHECK(jobs["y"]["queue_s"] == "61");
  CHECK(summary(dir, "exact")["queue_mean_s"] == 56);

  // SRTF on one GPU, free suspends and resumes: a (100 s) from 0; b (10 s) arrives at 20 with
  // less left than a's 80, so a is suspended 20-30 while b runs, then resumes and ends at 110.
  // a: JCT 110, progress 100, queue 10 (0 before its first start); b: queue 0. Mean 5.
  const std::string ab = "id,submit_s,workers,duration_s\na,0,1,100\nb,20,1,10\n";
  Outcome srtf = run(dir, kOneGpu, ab,
                     "-q --policy srtf --set costs.suspend_s=0 --set costs.resume_s=0", "srtf");
  REQUIRE(srtf.code == 0);
  jobs = jobs_csv(dir, "srtf");
  CHECK(jobs["a"]["finish_s"] == "110");
  CHECK(jobs["a"]["preemptions"] == "1");
  CHECK(jobs["a"]["queue_s"] == "10");
  CHECK(jobs["b"]["queue_s"] == "0");
  CHECK(summary(dir, "srtf")["queue_mean_s"] == 5);

  // FIFO, no preemption and no costs: the wait before the first start, as it always was. b
  // waits 20-100 behind a: 80; a 0. Mean 40.
  REQUIRE(run(dir, kOneGpu, ab, "-q --policy fifo", "fifo").code == 0);
  jobs = jobs_csv(dir, "fifo");
  CHECK(jobs["b"]["queue_s"] == "80");
  CHECK(number(jobs["b"]["queue_s"]) ==
        number(jobs["b"]["first_start_s"]) - number(jobs["b"]["submit_s"]));
  CHECK(summary(dir, "fifo")["queue_mean_s"] == 40);
}

TEST_CASE("queueing delay of unfinished jobs is their time without progress so far",
          "[metrics][queue]") {
  ScratchDir dir;
  // FIFO on one GPU, stopped at 50: a (100 s) runs 0-50, b (10 s, submitted 20) waits 20-50.
  // jobs.csv: a's queue 50 - 0 - 50 = 0, b's 50 - 20 - 0 = 30 (not empty although it has
  // not started). Both are censored at 50 (a could still be preempted): queue_censored.
  Outcome r = run(dir, kOneGpu, "id,submit_s,workers,duration_s\na,0,1,100\nb,20,1,10\n",
                  "-q --policy fifo --until 50", "until");
  REQUIRE(r.code == 0);
  auto jobs = jobs_csv(dir, "until");
  CHECK(jobs["a"]["queue_s"] == "0");
  CHECK(jobs["b"]["first_start_s"].empty());
  CHECK(jobs["b"]["queue_s"] == "30");
  nlohmann::json s = summary(dir, "until");
  CHECK(s["queue_censored"] == true);
  CHECK(s["queue_mean_s"] == 15);
}

TEST_CASE("Jain's index is left out with fewer than two users", "[metrics][fairness]") {
  ScratchDir dir;
  // No user column: one user "". FIFO on one V100: a (100 s) 0-100, b (50 s, submitted 0)
  // 100-150: slowdowns 100/100 = 1 and 150/50 = 3. Jain's index over one user's mean would be
  // 2^2 / (1 x 2^2) = 1 whatever the policy did: not written. The rest stays: mean 2, max 3.
  const std::string trace = "id,submit_s,workers,duration_s\na,0,1,100\nb,0,1,50\n";
  REQUIRE(run(dir, kOneGpu, trace, "-q --policy fifo", "none").code == 0);
  nlohmann::json f = summary(dir, "none")["fairness"];
  CHECK(f["jobs"] == 2);
  CHECK(f["users"] == 1);
  CHECK_FALSE(f.contains("jain_user_slowdown"));
  CHECK(f["slowdown_mean"] == 2.0);
  CHECK(f["slowdown_max"] == 3.0);

  // One named user: the same. Two users: u1's mean 1, u2's 3: Jain = (1 + 3)^2 / (2 x (1 + 9))
  // = 16 / 20 = 0.8.
  REQUIRE(run(dir, kOneGpu, "id,submit_s,workers,duration_s,user\na,0,1,100,u1\nb,0,1,50,u1\n",
              "-q --policy fifo", "one")
              .code == 0);
  CHECK_FALSE(summary(dir, "one")["fairness"].contains("jain_user_slowdown"));
  REQUIRE(run(dir, kOneGpu, "id,submit_s,workers,duration_s,user\na,0,1,100,u1\nb,0,1,50,u2\n",
              "-q --policy fifo", "two")
              .code == 0);
  CHECK(summary(dir, "two")["fairness"]["jain_user_slowdown"] == 0.8);

  // dlsim table over both: the run without users has an empty cell, not 1.
  Outcome t = run_dlsim("table --format csv --columns run,fairness.jain_user_slowdown " +
                            dir.file("none") + " " + dir.file("two"),
                        dir);
  REQUIRE(t.code == 0);
  CHECK(t.out == "run,fairness.jain_user_slowdown\nnone,\ntwo,0.8\n");
}

TEST_CASE("effective utilization of a trace without models is the assumed utilization, flagged",
          "[metrics][util]") {
  ScratchDir dir;
  // Two V100s, FIFO: a (no model, no gpu_util) and b (gpu_util 0.9) run 0-100 s side by side.
  // Allocated 2 x 100 / (2 x 100) = 1. a counts runtime.default_gpu_util = 0.52, an assumption;
  // b its 0.9: effective (0.52 + 0.9) x 100 / 200 = 0.71, busy the same (each alone on its GPU).
  // One job of two is assumed: util_assumed_jobs 1, and stdout says so.
  Outcome r =
      run(dir, kTwoGpus, "id,submit_s,workers,duration_s,gpu_util\na,0,1,100,\nb,0,1,100,0.9\n",
          "--policy fifo", "mixed");
  REQUIRE(r.code == 0);
  nlohmann::json s = summary(dir, "mixed");
  CHECK(s["gpu_util_alloc"] == 1.0);
  CHECK(s["gpu_util_effective"].get<double>() == Approx(0.71).epsilon(1e-12));
  CHECK(s["gpu_util_busy"].get<double>() == Approx(0.71).epsilon(1e-12));
  CHECK(s["util_assumed_jobs"] == 1);
  CHECK_THAT(r.out, Catch::Contains("(effective and busy assume utilization 0.52 for 1 of 2 "
                                    "jobs: no model or trace value)"));

  // Only durations (a trace without models): every job assumed, and the effective figure is
  // 0.52 x the allocated one exactly. One GPU, a (100 s) then b (50 s): allocated 150 / 150 = 1,
  // effective 0.52.
  REQUIRE(run(dir, kOneGpu, "id,submit_s,workers,duration_s\na,0,1,100\nb,0,1,50\n",
              "-q --policy fifo", "durations")
              .code == 0);
  s = summary(dir, "durations");
  CHECK(s["util_assumed_jobs"] == 2);
  CHECK(s["gpu_util_effective"].get<double>() == Approx(0.52 * s["gpu_util_alloc"].get<double>()));

  // Every utilization given: no key, no line.
  Outcome given = run(dir, kOneGpu, "id,submit_s,workers,duration_s,gpu_util\na,0,1,100,0.5\n",
                      "--policy fifo", "given");
  REQUIRE(given.code == 0);
  CHECK_FALSE(summary(dir, "given").contains("util_assumed_jobs"));
  CHECK(summary(dir, "given")["gpu_util_effective"] == 0.5);
  CHECK_THAT(given.out, !Catch::Contains("assume"));
}

TEST_CASE("every policy's queueing delay lies between the wait before the first start and the JCT",
          "[metrics][queue][policies]") {
  // Twelve jobs of 1, 2 and 4 GPUs on one node of 4 V100s: enough contention that the
  // preemptive policies suspend, gandiva time-slices and the elastic ones resize. For every job
  // of every policy, with T its JCT (or its time so far, unfinished) and P its progress time
  // (run time less its waits for other jobs' turns): the queueing delay Q = T - P satisfies
  // first start - submit <= Q <= T, and 0 <= P <= run time. Where nothing but the first wait can
  // stop a job (no preemption, migration, resize or time-slicing, and a start that costs 0 s)
  // Q is exactly the wait before the first start, the figure of the simple policies as it always
  // was. Gandiva must have waited for turns somewhere: its queueing is not 0 by construction.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 4}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\n"
                                    "a,0,4,600\nb,0,1,300\nc,10,2,200\nd,20,1,50\ne,30,1,400\n"
                                    "f,40,2,100\ng,60,4,120\nh,80,1,30\ni,100,1,250\nj,120,2,60\n"
                                    "k,150,1,90\nl,200,4,40\n");
  const std::vector<std::string> simple = {"fifo", "sjf",  "fifo-backfill", "shortest-gpu-time",
                                           "drf",  "srtf", "las",           "tiresias"};
  int policies = 0;
  for (const auto& entry : policy_registry()) {
    // automl runs a sessions file's trials, util-proactive needs a trained predictor file,
    // external a scheduler's command.
    if (entry.name == "automl" || entry.name == "util-proactive" || entry.name == "external")
      continue;
    INFO(entry.name);
    ++policies;
    // aiturbo reads a trained classifier's text ("": the stability rule alone); hot-spares
    // keeps no spare of the one node (a pool of every node is refused).
    const char* params = entry.name == "aiturbo"      ? "{classifier: ''}"
                         : entry.name == "hot-spares" ? "{spare_nodes: 0}"
                                                      : "{}";
    RunOutput out = run_policy(entry, c, w, YAML::Load(params));
    const bool is_simple = std::find(simple.begin(), simple.end(), entry.name) != simple.end();
    SimTime turns = 0;
    for (JobId j = 0; j < w.jobs.size(); ++j) {
      const JobState& job = out.state.jobs[j];
      if (job.status == JobStatus::kFuture) continue;
      INFO(w.job_names[j]);
      const SimTime submit = w.jobs[j].request.submit;
      const SimTime until = job.end >= 0 ? job.end : out.result.end;
      const SimTime progress = progress_time(out.state, out.result, j);
      const SimTime queue = until - submit - progress;
      CHECK(progress >= 0);
      CHECK(progress <= job.run_time);
      turns += job.run_time - progress;
      CHECK(queue <= until - submit);
      const SimTime first_wait = job.first_start >= 0 ? job.first_start - submit : queue;
      CHECK(queue >= first_wait);
      if (is_simple && job.preemptions == 0 && job.migrations == 0 && job.resizes == 0)
        CHECK(queue == first_wait);
    }
    if (entry.name == "gandiva") CHECK(turns > 0);
    if (is_simple) CHECK(turns == 0);
  }
  CHECK(policies >= 20);
}
