// Runs that end with jobs unfinished (docs/outputs.md#unfinished-jobs): their JCT, queueing and
// makespan count each unfinished job at its time so far and say so; a deadlock is reported; and
// `dlsim table` and `dlsim compare` never rank such a run above one that finished its jobs.
// Every expected number is worked out in the comment above it.
#include "tests/support/harness.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>

using namespace dlsim::test;

namespace {

// FIFO on one node of 4 V100s: a (3 GPUs, submitted 0, runs 0-100 s), b (2 GPUs, submitted 10,
// waits for a, runs 100-150 s), c (1 GPU, submitted 20, kept behind b, runs 100-130 s).
Outcome run_fifo(const ScratchDir& dir, const std::string& until, const std::string& out) {
  dir.write("four.yaml", "nodes:\n  - {count: 1, devices: {V100: 4}}\n");
  dir.write("t.csv", "id,submit_s,workers,duration_s\na,0,3,100\nb,10,2,50\nc,20,1,30\n");
  return run_dlsim("run --policy fifo --cluster " + dir.file("four.yaml") + " --trace " +
                       dir.file("t.csv") + (until.empty() ? "" : " --until " + until) + " --out " +
                       dir.file(out),
                   dir);
}

// Two jobs of 4 one-GPU workers, 100 s each, both submitted at 0, on one node of 4 GPUs.
Outcome run_pair(const ScratchDir& dir, const std::string& policy, const std::string& out) {
  dir.write("four.yaml", "nodes:\n  - {count: 1, devices: {V100: 4}}\n");
  dir.write("pair.csv", "id,submit_s,workers,duration_s\na,0,4,100\nb,0,4,100\n");
  return run_dlsim("run --policy " + policy + " --cluster " + dir.file("four.yaml") + " --trace " +
                       dir.file("pair.csv") + " --out " + dir.file(out),
                   dir);
}

nlohmann::json summary(const ScratchDir& dir, const std::string& out) {
  return nlohmann::json::parse(read_file(dir.file(out + "/summary.json")));
}

} // namespace

TEST_CASE("a run stopped with jobs running counts them at their time so far", "[outputs][censor]") {
  ScratchDir dir;
  Outcome r = run_fifo(dir, "120", "r");
  REQUIRE(r.code == 0);
  nlohmann::json s = summary(dir, "r");
  CHECK(s["finished"] == 1);
  CHECK(s["unfinished"] == 2);
  // a finished: JCT 100. b and c run from 100, censored at 120: 120 - 10 = 110, 120 - 20 = 100.
  // Mean (100 + 110 + 100) / 3 = 103.333333 (over a alone it would read 100). Sorted 100, 100,
  // 110: p95 at 0.95 x 2 = 1.9, 100 + 0.9 x 10 = 109.
  CHECK(s["jct_censored"] == true);
  CHECK(s["jct_mean_s"].get<double>() == Approx(103.333333).margin(1e-6));
  CHECK(s["jct_p95_s"].get<double>() == Approx(109).margin(1e-6));
  // Queueing is the time without progress: a 0; b 110 - 20 run = 90; c 100 - 20 run = 80: mean
  // 170 / 3. A lower bound: b and c are unfinished and could still be preempted.
  CHECK(s["queue_censored"] == true);
  CHECK(s["queue_mean_s"].get<double>() == Approx(56.666667).margin(1e-6));
  // Stopped at 120 by --until: a lower bound, and not a deadlock.
  CHECK(s["makespan_s"] == 120);
  CHECK(s["makespan_censored"] == true);
  CHECK_FALSE(s.contains("deadlocked_at_s"));
  // The summary line marks the lower bounds: 103.3 s is 0.03 h; 56.7 s 0.02 h.
  CHECK_THAT(r.out, Catch::Contains("makespan   >120.0 s (0.03 h)"));
  CHECK_THAT(r.out, Catch::Contains("JCT        mean >103.3 s (0.03 h), p95 >109.0 s (0.03 h)"));
  CHECK_THAT(r.out, Catch::Contains("queueing   mean >56.7 s (0.02 h)"));
  CHECK_THAT(r.err, !Catch::Contains("deadlock"));
}

TEST_CASE("a run that finished nothing does not report a JCT of 0", "[outputs][censor]") {
  ScratchDir dir;
  REQUIRE(run_fifo(dir, "50", "r").code == 0);
  nlohmann::json s = summary(dir, "r");
  CHECK(s["finished"] == 0);
  // a runs (50 - 0 = 50); b and c wait (50 - 10 = 40, 50 - 20 = 30). JCT mean 120 / 3 = 40.
  // Sorted 30, 40, 50: p95 = 40 + 0.9 x 10 = 49.
  CHECK(s["jct_mean_s"] == 40);
  CHECK(s["jct_p95_s"].get<double>() == Approx(49).margin(1e-6));
  // Queueing: a 0 (started), b 40 and c 30 so far: mean 70 / 3 = 23.333333, censored.
  CHECK(s["queue_censored"] == true);
  CHECK(s["queue_mean_s"].get<double>() == Approx(23.333333).margin(1e-6));
  CHECK(s["queue_median_s"] == 30);

  // At 15 c (submitted at 20) does not exist yet: no time so far, left out. a 15, b 15 - 10 = 5:
  // JCT mean 10; queueing 0 and 5: 2.5. Unfinished still counts c.
  REQUIRE(run_fifo(dir, "15", "early").code == 0);
  nlohmann::json e = summary(dir, "early");
  CHECK(e["unfinished"] == 3);
  CHECK(e["jct_mean_s"] == 10);
  CHECK(e["queue_mean_s"] == 2.5);
}

TEST_CASE("a complete run's summary has no censoring keys", "[outputs][censor]") {
  ScratchDir dir;
  Outcome r = run_fifo(dir, "", "r");
  REQUIRE(r.code == 0);
  nlohmann::json s = summary(dir, "r");
  CHECK(s["unfinished"] == 0);
  CHECK_FALSE(s.contains("jct_censored"));
  CHECK_FALSE(s.contains("deadlocked_at_s"));
  // JCTs 100, 140, 110: mean 116.666667, without `>`.
  CHECK_THAT(r.out, Catch::Contains("JCT        mean 116.7 s"));
}

TEST_CASE("k8s-default's deadlock of two 4-worker jobs on 4 GPUs is reported, JCT not 0",
          "[outputs][censor][k8s]") {
  ScratchDir dir;
  Outcome r = run_pair(dir, "k8s-default", "k8s");
  // A legitimate simulated outcome: exit 0.
  REQUIRE(r.code == 0);
  nlohmann::json s = summary(dir, "k8s");
  // Pods a0, b0 at 0 and a1, b1 at 0.1 s take the 4 GPUs; a2, b2 at 0.2 and a3, b3 at 0.3 find
  // none. The pod creation at 0.3 is the last event: nothing runs, no event is left.
  CHECK(s["unfinished"] == 2);
  CHECK(s["deadlocked_at_s"] == 0.3);
  // Neither job started: JCT and queueing 0.3 - 0 = 0.3 each, lower bounds.
  CHECK(s["jct_mean_s"] == 0.3);
  CHECK(s["jct_censored"] == true);
  CHECK(s["queue_mean_s"] == 0.3);
  CHECK(s["queue_censored"] == true);
  CHECK(s["makespan_censored"] == true);
  CHECK_THAT(r.out, Catch::Contains("deadlock   at 0.3 s: 2 jobs can never finish"));
  CHECK_THAT(r.out, Catch::Contains("JCT        mean >0.3 s"));
  CHECK_THAT(r.err, Catch::Contains("warning: deadlock at 0.3 s: 2 jobs never finished"));
}

TEST_CASE("dlsim table lists a run that finished its jobs before a deadlocked one",
          "[table][censor]") {
  ScratchDir dir;
  REQUIRE(run_pair(dir, "k8s-default", "k8s").code == 0);
  REQUIRE(run_pair(dir, "kube-batch", "kb").code == 0);
  // kube-batch gangs the jobs: a 0-100, b 100-200: JCTs 100 and 200, mean 150; makespan 200.
  // Given first, the deadlocked run still comes second, its figures marked as lower bounds.
  // (The runs' run.yaml also differ in the policies' parameters: columns of their own.)
  std::string runs = " " + dir.file("k8s") + " " + dir.file("kb");
  Outcome text =
      run_dlsim("table --metrics finished,makespan_s,jct_mean_s,queue_mean_s" + runs, dir);
  REQUIRE(text.code == 0);
  std::istringstream lines(text.out);
  std::string header, first, second;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  CHECK(header.rfind("run  policy       seed  outcome", 0) == 0);
  CHECK(first.rfind("kb   kube-batch      1  complete", 0) == 0);
  CHECK(first.ends_with("2       200.0       150.0          50.0"));
  CHECK(second.rfind("k8s  k8s-default     1  deadlocked at 0.3 s", 0) == 0);
  CHECK(second.ends_with("0        >0.3        >0.3          >0.3"));
  Outcome csv = run_dlsim("table --format csv --metrics jct_mean_s" + runs, dir);
  REQUIRE(csv.code == 0);
  std::istringstream rows(csv.out);
  std::getline(rows, header);
  std::getline(rows, first);
  std::getline(rows, second);
  CHECK(header.rfind("run,policy,seed,outcome,", 0) == 0);
  CHECK(first.rfind("kb,kube-batch,1,complete,", 0) == 0);
  CHECK(first.ends_with(",150.0"));
  CHECK(second.rfind("k8s,k8s-default,1,deadlocked at 0.3 s,", 0) == 0);
  CHECK(second.ends_with(",0.3"));
}

TEST_CASE("dlsim compare: more unfinished jobs or a deadlock is a regression",
          "[compare][censor]") {
  ScratchDir dir;
  REQUIRE(run_pair(dir, "kube-batch", "kb").code == 0);
  REQUIRE(run_pair(dir, "k8s-default", "k8s").code == 0);
  // kube-batch's mean JCT 150 against the deadlock's 0.3: lower, but a lower bound, so CHANGED,
  // not IMPROVED; unfinished 0 -> 2 and the deadlock are regressions.
  Outcome r =
      run_dlsim("compare " + dir.file("kb/summary.json") + " " + dir.file("k8s/summary.json") +
                    " --metrics unfinished,deadlocked_at_s,jct_mean_s --tolerance unfinished=10",
                dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("from 0  << REGRESSION: beyond tolerance 10"));
  CHECK_THAT(r.out, Catch::Contains("deadlocked_at_s  (missing)  0.3     changed  << REGRESSION"));
  CHECK_THAT(r.out, Catch::Contains("-99.8%  << CHANGED"));
  CHECK_THAT(r.out, !Catch::Contains("IMPROVED"));
  CHECK_THAT(r.out, Catch::Contains("compare: REGRESSION"));

  // 2 unfinished against 3 is +50%: within a tolerance of 100%, and still a regression.
  REQUIRE(run_fifo(dir, "50", "f50").code == 0);   // 3 unfinished
  REQUIRE(run_fifo(dir, "120", "f120").code == 0); // 2 unfinished
  Outcome more = run_dlsim("compare " + dir.file("f120/summary.json") + " " +
                               dir.file("f50/summary.json") + " --metrics unfinished --tolerance 1",
                           dir);
  CHECK(more.code == 1);
  CHECK_THAT(more.out, Catch::Contains("<< REGRESSION"));
  // The other way round fewer jobs are unfinished: within the tolerance, it passes.
  Outcome fewer =
      run_dlsim("compare " + dir.file("f50/summary.json") + " " + dir.file("f120/summary.json") +
                    " --metrics unfinished --tolerance 1",
                dir);
  CHECK(fewer.code == 0);
  // The deadlocked run as the baseline: kube-batch's JCT 150 against its lower bound 0.3 is no
  // known regression (CHANGED); the deadlock and the flags that went away are improvements.
  Outcome back =
      run_dlsim("compare " + dir.file("k8s/summary.json") + " " + dir.file("kb/summary.json") +
                    " --metrics jct_mean_s,deadlocked_at_s,jct_censored",
                dir);
  CHECK_THAT(back.out,
             Catch::Contains("deadlocked_at_s       0.3  (missing)     changed  << IMPROVED"));
  CHECK_THAT(back.out,
             Catch::Contains("jct_censored         true  (missing)     changed  << IMPROVED"));
  CHECK_THAT(back.out, Catch::Contains("<< CHANGED"));
  CHECK_THAT(back.out, !Catch::Contains("REGRESSION"));
}
