// Atomic result directories (docs/outputs.md): a killed run leaves the earlier
// run or the new one, never a mix; --out is checked before the run; names are made safe;
// run.yaml re-runs from anywhere; sweeps do not outlive their parent; temporaries are cleaned.
#include "sim/cli/run_experiment.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace dlsim;
using namespace dlsim::test;

namespace {

const char* const kFiles[] = {"jobs.csv", "timeseries.csv", "run.yaml", "summary.json"};

std::string contents_of(const std::string& dir) {
  std::string all;
  for (const char* f : kFiles)
    all += std::string(f) + ":\n" + (fs::exists(dir + "/" + f) ? read_file(dir + "/" + f) : "-");
  return all;
}

// Runs dlsim with DLSIM_TEST_KILL_AT=`stage` in the environment.
Outcome run_killed_at(const std::string& stage, const std::string& args, const ScratchDir& dir) {
  ::setenv("DLSIM_TEST_KILL_AT", stage.c_str(), 1);
  Outcome o = run_dlsim(args, dir);
  ::unsetenv("DLSIM_TEST_KILL_AT");
  return o;
}

std::size_t entries_named_like(const fs::path& dir, const std::string& part) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    n += e.path().filename().string().find(part) != std::string::npos;
  return n;
}

} // namespace

TEST_CASE("dlsim run killed with -9 leaves the complete earlier run or the complete new one",
          "[cli][atomic]") {
  ScratchDir dir;
  const std::string out = dir.file("out");
  const std::string old_args = "run -q --policy fifo --until 20000";
  const std::string new_args = "run -q --policy sjf --until 30000";
  // The two runs differ in every file (policy and horizon), so a mix would show.
  REQUIRE(run_dlsim(old_args + " --out " + dir.file("old"), dir).code == 0);
  REQUIRE(run_dlsim(new_args + " --out " + dir.file("new"), dir).code == 0);
  const std::string old_run = contents_of(dir.file("old"));
  const std::string new_run = contents_of(dir.file("new"));
  REQUIRE(old_run != new_run);
  for (const char* f : kFiles)
    REQUIRE(read_file(dir.file("old") + "/" + f) != read_file(dir.file("new") + "/" + f));

  // At each stage of the write, a SIGKILL (the shell reports 128 + 9). Before the swap the
  // earlier run stands; after it, the new one; a leftover staging directory is removed by the
  // next run into the same --out.
  for (auto [stage, expect_new] :
       {std::pair{"writing", false}, std::pair{"staged", false}, std::pair{"swapped", true}}) {
    CAPTURE(stage);
    const std::string to_out = " --out " + out;
    REQUIRE(run_dlsim(old_args + to_out, dir).code == 0);
    Outcome killed = run_killed_at(stage, new_args + to_out, dir);
    CHECK(killed.code == 128 + SIGKILL);
    CHECK(contents_of(out) == (expect_new ? new_run : old_run));
    REQUIRE(run_dlsim(old_args + to_out, dir).code == 0);
    CHECK(contents_of(out) == old_run);
    CHECK(entries_named_like(dir.path(), ".dlsim-") == 0);
  }
}

TEST_CASE("a run writes again into its own --out, the GPU-sharing measures included",
          "[cli][atomic]") {
  // report.fragmentation adds allocation.csv and fragmentation.csv: they are results, replaced
  // by the next run (not carried over as another program's files, which failed with "File
  // exists" since the new run had written them already), and gone after a run without them.
  ScratchDir dir;
  const std::string out = " --out " + dir.file("out");
  const std::string args = "run -q --policy fifo --until 20000";
  REQUIRE(run_dlsim(args + " --set report.fragmentation=true" + out, dir).code == 0);
  REQUIRE(fs::exists(dir.file("out/allocation.csv")));
  REQUIRE(fs::exists(dir.file("out/fragmentation.csv")));
  Outcome again = run_dlsim(args + " --set report.fragmentation=true" + out, dir);
  CHECK(again.code == 0);
  CHECK(again.err.find("cannot carry over") == std::string::npos);
  CHECK(run_dlsim(args + out, dir).code == 0);
  CHECK(!fs::exists(dir.file("out/allocation.csv")));
  CHECK(!fs::exists(dir.file("out/fragmentation.csv")));
}

TEST_CASE("an --out path is checked before the run and other files in it are kept",
          "[cli][atomic]") {
  ScratchDir dir;
  std::string file = dir.write("a-file", "x");
  Outcome o = run_dlsim("run -q --out " + file, dir);
  CHECK(o.code == 1);
  CHECK_THAT(o.err, Catch::Contains("exists and is not a directory"));
  CHECK(read_file(file) == "x");

  fs::create_directories(dir.file("holder/sub"));
  o = run_dlsim("run -q --out " + dir.file("holder"), dir);
  CHECK(o.code == 1);
  CHECK_THAT(o.err, Catch::Contains("holds a directory (sub)"));
  CHECK(!fs::exists(dir.file("holder/summary.json")));

  // A file that is not a result (a sweep's dlsim.log, a note) survives the swap; a stale
  // temporary of a killed write (pid 4999999 is above Linux's largest pid, 2^22) does not.
  fs::create_directories(dir.file("kept"));
  dir.write("kept/notes.txt", "mine");
  dir.write("kept/jobs.csv.tmp.4999999", "half");
  REQUIRE(run_dlsim("run -q --until 1000 --out " + dir.file("kept"), dir).code == 0);
  CHECK(read_file(dir.file("kept/notes.txt")) == "mine");
  CHECK(fs::exists(dir.file("kept/summary.json")));
  CHECK(!fs::exists(dir.file("kept/jobs.csv.tmp.4999999")));
}

TEST_CASE("a default output directory stays inside results/ whatever the experiment's name",
          "[cli][atomic]") {
  CHECK(safe_file_name("../../etc/x") == "_.._.._etc_x");
  CHECK(safe_file_name("..") == "_..");
  CHECK(safe_file_name("ok-name_1.5+") == "ok-name_1.5+");
  CHECK(safe_file_name("") == "_");
  CHECK(safe_file_name(std::string(300, 'a')).size() == 100);
  Experiment e;
  e.name = "../../outside";
  e.policy = "fifo";
  e.seed = 3;
  CHECK(default_out_dir(e) == "results/_.._.._outside-fifo-3");
}

TEST_CASE("run.yaml names its files by absolute path, so a re-run from elsewhere reads them",
          "[cli][atomic]") {
  ScratchDir dir;
  REQUIRE(run_dlsim("run -q --out " + dir.file("first"), dir).code == 0);
  // From a directory holding another traces/sample.csv (one job), the cwd-relative path of old
  // would have read that one: 1 job instead of 500.
  fs::create_directories(dir.file("elsewhere/traces"));
  dir.write("elsewhere/traces/sample.csv",
            "id,submit_s,workers,gpus_per_worker,duration_s,user,model\nj,0,1,1,10,u,vgg16\n");
  std::string cmd = "cd '" + dir.file("elsewhere") + "' && '" DLSIM_BINARY "' run -q -e '" +
                    dir.file("first/run.yaml") + "' --out '" + dir.file("second") + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(read_file(dir.file("second/summary.json")) == read_file(dir.file("first/summary.json")));
  CHECK_THAT(read_file(dir.file("first/run.yaml")),
             Catch::Contains("file: " DLSIM_SOURCE_DIR_FOR_TESTS "/traces/sample.csv"));
}

TEST_CASE("sweep usage errors leave no sweep.json, and a killed sweep takes its runs with it",
          "[sweep][atomic]") {
  ScratchDir dir;
  std::string spec = dir.write("spec.yaml", "grid:\n  seed: [1, 2]\n");
  Outcome o = run_dlsim("sweep " + spec + " --out " + dir.file("s") + " --only 7", dir);
  CHECK(o.code == 2);
  CHECK(!fs::exists(dir.file("s/sweep.json")));
  o = run_dlsim("sweep " + spec + " --out " + dir.file("s") + " --emit pbs", dir);
  CHECK(o.code == 2);
  CHECK(!fs::exists(dir.file("s/sweep.json")));

  // The runs stall 60 s before their swap; the sweep is killed with -9 meanwhile. Its children
  // must die with it (PR_SET_PDEATHSIG), not run on unwatched.
  std::string pid_file = dir.file("sweep.pid");
  // Only the dlsim command goes to the background, so $! is its pid.
  std::string cmd = "cd '" DLSIM_SOURCE_DIR_FOR_TESTS
                    "' || exit 1; DLSIM_TEST_STALL_AT=staged '" DLSIM_BINARY "' sweep '" +
                    spec + "' -j 2 --out '" + dir.file("k") + "' > /dev/null 2>&1 & echo $! > '" +
                    pid_file + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  pid_t sweep = std::stoi(read_file(pid_file));
  std::vector<pid_t> children;
  auto children_file =
      "/proc/" + std::to_string(sweep) + "/task/" + std::to_string(sweep) + "/children";
  for (int i = 0; i < 200 && children.size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::istringstream in(read_file(children_file));
    children.clear();
    for (pid_t c = 0; in >> c;)
      children.push_back(c);
  }
  REQUIRE(children.size() == 2);
  ::kill(sweep, SIGKILL);
  auto alive = [](pid_t p) {
    std::ifstream stat("/proc/" + std::to_string(p) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    // The state follows the ")" that closes the command name; a zombie is dead.
    auto close = line.rfind(')');
    return close != std::string::npos && line.size() > close + 2 && line[close + 2] != 'Z';
  };
  bool any_alive = true;
  for (int i = 0; i < 100 && any_alive; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    any_alive = alive(children[0]) || alive(children[1]);
  }
  CHECK(!any_alive);
}

TEST_CASE("compare rejects a JSON object that is not a summary", "[compare][atomic]") {
  ScratchDir dir;
  std::string empty = dir.write("empty.json", "{}");
  REQUIRE(run_dlsim("run -q --until 1000 --out " + dir.file("r"), dir).code == 0);
  Outcome o = run_dlsim("compare " + empty + " " + dir.file("r/summary.json"), dir);
  CHECK(o.code == 1);
  CHECK_THAT(o.err, Catch::Contains("empty.json: no 'jobs' key: not a dlsim summary.json"));
}

namespace {

std::vector<std::string> lines_of(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(in, line))
    rows.push_back(line);
  return rows;
}

} // namespace

TEST_CASE("the timeseries of a one-job trace of 999,999,999 s has a row where it changes",
          "[cli][bounded]") {
  // One job of 999,999,999 s on one GPU from t = 0 (no start cost in the default experiment):
  // the run ends at T = 999,999,999 s. At the default 60 s that was 16.7 million grid times
  // (731,000 rows even after doubling the period). Only change points are written, and the
  // state never changes before the end: the row at 0 (the job running) and the last grid time
  // at or before T, floor(999,999,999 / 60) * 60 = 999,999,960 s, where it still runs (it
  // finishes at 999,999,999).
  ScratchDir dir;
  std::string trace = dir.write("one.csv", "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                           "long,0,1,1,999999999\n");
  Outcome o = run_dlsim("run -q --trace " + trace + " --out " + dir.file("out"), dir);
  REQUIRE(o.code == 0);
  CHECK(o.err.find("doubled") == std::string::npos);
  CHECK_THAT(read_file(dir.file("out/summary.json")), Catch::Contains("\"makespan_s\": 999999999"));
  auto rows = lines_of(dir.file("out/timeseries.csv"));
  REQUIRE(rows.size() == 1 + 2); // the header and the rows
  CHECK(rows[1].rfind("0,1,0,1,", 0) == 0);
  CHECK(rows[2].rfind("999999960,1,0,1,", 0) == 0);
  CHECK(rows[1].substr(rows[1].find(',')) == rows[2].substr(rows[2].find(',')));
}

TEST_CASE("a timeseries that changes at every grid time still doubles its period",
          "[cli][bounded]") {
  // Job k (k = 0..50,000) is submitted at 120k s and runs 60 s, alone on one GPU, so at the
  // grid times 120k one job runs and at 120k + 60 none: every 60 s row differs from the one
  // before and is written. After 100,000 rows (t = 0 .. 99,999 * 60 = 5,999,940 s) the period
  // doubles to 120 s; the next grid time is 5,999,940 + 120 = 6,000,060 s, the end of the run
  // (job 50,000 runs 6,000,000..6,000,060). Its row equals the one at 5,999,940 (nothing runs)
  // but is the last grid time of the run, so it is written: 100,001 rows.
  ScratchDir dir;
  std::string text = "id,submit_s,workers,gpus_per_worker,duration_s\n";
  for (int k = 0; k <= 50000; ++k)
    text += "j" + std::to_string(k) + "," + std::to_string(120 * k) + ",1,1,60\n";
  std::string trace = dir.write("alternating.csv", text);
  Outcome o = run_dlsim("run -q --trace " + trace + " --out " + dir.file("out"), dir);
  REQUIRE(o.code == 0);
  CHECK_THAT(o.err, Catch::Contains("100001 rows; the sampling period doubled 1 times to 120 s"));
  auto rows = lines_of(dir.file("out/timeseries.csv"));
  REQUIRE(rows.size() == 1 + 100001);
  CHECK(rows[1].rfind("0,1,0,1,", 0) == 0);
  CHECK(rows[2].rfind("60,0,0,0,", 0) == 0);
  CHECK(rows[100000].rfind("5999940,0,0,0,", 0) == 0); // the last row at 60 s
  CHECK(rows[100001].rfind("6000060,0,0,0,", 0) == 0); // the run's last grid time, at 120 s
}
