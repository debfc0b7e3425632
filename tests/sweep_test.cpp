// dlsim sweep: grid expansion and stable ids, a 3 x 5 x 2 sweep end to end, kill -9 and resume,
// failed runs, stale configs, --only / --emit list / --collect, and a real Slurm job array.
#include "sim/cli/analysis/sweep_spec.h"
#include "sim/cli/sweep_csv.h"
#include "sim/engine/error.h"
#include "tests/support/harness.h"
#include "tests/support/skip.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <set>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace dlsim;
using namespace dlsim::test;
namespace fs = std::filesystem;

namespace {

std::size_t count_summaries(const std::string& sweep_dir) {
  std::size_t n = 0;
  if (!fs::exists(sweep_dir + "/runs")) return 0;
  for (const auto& d : fs::directory_iterator(sweep_dir + "/runs"))
    n += fs::exists(d.path() / "summary.json");
  return n;
}

std::string column(const CsvTable& t, std::size_t row, const std::string& name) {
  for (std::size_t c = 0; c < t.header.size(); ++c) {
    if (t.header[c] == name) return t.rows.at(row).at(c);
  }
  FAIL("no column " << name);
  return "";
}

// The sweep the issue asks for: 3 policies x 5 seeds x 2 cluster sizes on the bundled trace.
constexpr const char* kSpec3x5x2 = R"(# 3 policies x 5 seeds x 2 sizes of the small cluster
experiment: configs/experiments/default.yaml
grid:
  policy.name: [fifo, sjf, srtf]
  seed: [1..5]
  cluster.nodes.0.count: [2, 4]
)";

// Starts `dlsim sweep spec --out out --jobs 1` (one run at a time, so that there is a
// middle), kills it with SIGKILL once `runs` runs have finished (or after 60 s), and returns
// how many had finished.
std::size_t sweep_killed_after(const std::string& spec, const std::string& out, std::size_t runs) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (::chdir(DLSIM_SOURCE_DIR_FOR_TESTS) != 0) ::_exit(127);
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    ::execl(DLSIM_BINARY, DLSIM_BINARY, "sweep", spec.c_str(), "--out", out.c_str(), "--jobs", "1",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (count_summaries(out) < runs && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  return count_summaries(out);
}

} // namespace

TEST_CASE("a sweep spec expands its grid row-major with stable ids", "[sweep]") {
  ScratchDir dir;
  SweepSpec s = load_sweep_spec(dir.write("s.yaml", kSpec3x5x2));
  // 3 policies x 5 seeds x 2 sizes = 30 runs.
  REQUIRE(s.runs.size() == 30);
  CHECK(s.keys == std::vector<std::string>{"policy.name", "seed", "cluster.nodes.0.count"});
  // Row-major, the first key slowest: index = policy*10 + (seed-1)*2 + size.
  // (sjf, 3, 4) -> 1*10 + 2*2 + 1 = 15.
  CHECK(s.runs[15].overrides ==
        Overrides{{"policy.name", "sjf"}, {"seed", "3"}, {"cluster.nodes.0.count", "4"}});
  CHECK(s.runs[0].overrides ==
        Overrides{{"policy.name", "fifo"}, {"seed", "1"}, {"cluster.nodes.0.count", "2"}});
  CHECK(s.runs[29].overrides ==
        Overrides{{"policy.name", "srtf"}, {"seed", "5"}, {"cluster.nodes.0.count", "4"}});
  CHECK(s.runs[15].id.rfind("sjf_3_4-", 0) == 0);
  CHECK(s.runs[15].id.size() == std::string("sjf_3_4-").size() + 8); // 8 hex digits of CRC-32

  // The id depends on the values only: the same run under a reordered grid keeps its hash.
  SweepSpec r = load_sweep_spec(dir.write("r.yaml", R"(grid:
  cluster.nodes.0.count: [4]
  seed: 3
  policy.name: [sjf]
)"));
  REQUIRE(r.runs.size() == 1);
  CHECK(r.runs[0].id.substr(r.runs[0].id.size() - 8) ==
        s.runs[15].id.substr(s.runs[15].id.size() - 8));
  CHECK(r.runs[0].id.rfind("4_3_sjf-", 0) == 0);

  // Ranges as list items, quoted strings kept quoted, and a list crossed with the grid:
  // 2 list entries x 4 seeds (1, 2, 3, 7) = 8 runs.
  SweepSpec l = load_sweep_spec(dir.write("l.yaml", R"(set: {costs.start_s: 1}
list:
  - {policy.name: fifo}
  - {policy.name: srtf, policy.placement: spread}
grid:
  seed: [1..3, 7]
  name: ["001"]
)"));
  REQUIRE(l.runs.size() == 8);
  CHECK(l.keys == std::vector<std::string>{"policy.name", "policy.placement", "seed", "name"});
  CHECK(l.fixed == Overrides{{"costs.start_s", "1"}});
  CHECK(l.runs[3].overrides ==
        Overrides{{"policy.name", "fifo"}, {"seed", "7"}, {"name", "\"001\""}});
  CHECK(l.runs[4].overrides == Overrides{{"policy.name", "srtf"},
                                         {"policy.placement", "spread"},
                                         {"seed", "1"},
                                         {"name", "\"001\""}});
}

TEST_CASE("bad sweep specs are errors that name the file, line and key", "[sweep][errors]") {
  ScratchDir dir;
  auto fails_with = [&](const std::string& yaml, const std::string& message) {
    std::string f = dir.write("bad.yaml", yaml);
    CHECK_THROWS_WITH(load_sweep_spec(f), Catch::Contains(message));
  };
  fails_with("grid:\n  seed: 5..1\n", "bad.yaml:2: grid.seed: range 5..1 is empty");
  fails_with("grid:\n  seed: []\n", "grid.seed: needs at least one value");
  fails_with("grids:\n  seed: [1]\n", "grids");
  fails_with("experiment: nowhere.yaml\ngrid: {seed: [1]}\n", "'nowhere.yaml': no such file");
  fails_with("name: x\n", "needs a grid or a list");
  fails_with("list: [{seed: 1}, {seed: 1}]\n", "same overrides");
  fails_with("list: [{seed: 1}]\ngrid: {seed: [2]}\n", "also in list");
  fails_with("grid: {seed: 1..200000}\n", "longer than 100000");
  // Keys are checked against the declared table (experiment_keys.cpp) before any run.
  fails_with("grid:\n  seed: [1]\n  costs.suspnd_s: [1, 2]\n",
             "bad.yaml:3: grid.costs.suspnd_s: costs.suspnd_s: unknown key (did you mean "
             "costs.suspend_s?)");
  fails_with("set: {runtime.speed: 2}\ngrid: {seed: [1]}\n",
             "bad.yaml:1: set: runtime.speed: unknown key (valid in runtime: checkpoint_gb_s, "
             "default_gpu_util, interference, max_jobs_per_device, max_timeslice_jobs, "
             "measured_scaling, observe, profile_s, resize, scaling, share;");
}

TEST_CASE("results.csv fields are quoted and split back", "[sweep]") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field(" lead") == "\" lead\"");
  CHECK(csv_split("a,\"b,c\",\"d\"\"e\",", "t") ==
        std::vector<std::string>{"a", "b,c", "d\"e", ""});
  CHECK_THROWS_WITH(csv_split("a,\"open", "f.csv:3"), Catch::Contains("f.csv:3: unterminated"));
}

TEST_CASE(
    "a 3 x 5 x 2 sweep writes results.csv, and killed with -9 then resumed gives the same bytes",
    "[sweep][cli]") {
  ScratchDir dir;
  std::string spec = dir.write("spec.yaml", kSpec3x5x2);
  std::string whole = dir.file("whole");
  Outcome r = run_dlsim("sweep " + spec + " --out " + whole + " --jobs 2", dir);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("30 runs: 30 ok, 0 failed, 0 missing"));
  CsvTable t = read_csv_table(whole + "/results.csv");
  REQUIRE(t.rows.size() == 30);
  // run, 3 swept keys, status, error, then summary.json's keys in its order, but for `seed`,
  // which the swept key's column already holds: every column name once.
  REQUIRE(t.header.size() > 8);
  CHECK(std::vector<std::string>(t.header.begin(), t.header.begin() + 8) ==
        std::vector<std::string>{"run", "policy.name", "seed", "cluster.nodes.0.count", "status",
                                 "error", "policy", "jobs"});
  CHECK(std::set<std::string>(t.header.begin(), t.header.end()).size() == t.header.size());
  // Nested values are columns of their own, never JSON in a cell.
  CHECK(std::find(t.header.begin(), t.header.end(), "util_by_kind.gpu.alloc") != t.header.end());
  CHECK(std::find(t.header.begin(), t.header.end(), "fairness.jain_user_slowdown") !=
        t.header.end());
  for (const auto& row : t.rows)
    for (const auto& cell : row)
      CHECK_FALSE((cell.starts_with('{') || cell.starts_with('[')));
  for (std::size_t i = 0; i < 30; ++i) {
    // Row i is run i: policy i / 10, seed (i / 2) % 5 + 1, size 2 or 4 by i % 2.
    const char* policies[] = {"fifo", "sjf", "srtf"};
    CHECK(column(t, i, "policy.name") == policies[i / 10]);
    CHECK(t.rows[i][2] == std::to_string(i / 2 % 5 + 1));
    CHECK(column(t, i, "cluster.nodes.0.count") == (i % 2 ? "4" : "2"));
    CHECK(column(t, i, "status") == "ok");
    CHECK(column(t, i, "policy") == policies[i / 10]); // what the run itself reports
    CHECK(column(t, i, "jobs") == "500"); // traces/sample.csv: 501 lines = header + 500 jobs
  }
  // The bundled trace names every job's model, so the seed changes nothing but the summary's
  // seed field (cli_test's determinism test): seed 1 and seed 5 of (srtf, 2 nodes) agree.
  CHECK(column(t, 20, "jct_mean_s") == column(t, 28, "jct_mean_s"));

  // A run in a sweep is `dlsim run` with the same overrides: the same summary.json, byte for byte.
  std::string direct = dir.file("direct");
  REQUIRE(
      run_dlsim("run -q --policy srtf --seed 5 --set cluster.nodes.0.count=2 --out " + direct, dir)
          .code == 0);
  CHECK(read_file(direct + "/summary.json") ==
        read_file(whole + "/runs/" + column(t, 28, "run") + "/summary.json"));

  // The same sweep, killed with SIGKILL part-way, then started again.
  std::string resumed = dir.file("resumed");
  std::size_t done_at_kill = sweep_killed_after(spec, resumed, 5);
  INFO("runs finished when killed: " << done_at_kill);
  REQUIRE(done_at_kill < 30);
  CHECK_FALSE(fs::exists(resumed + "/results.csv"));
  Outcome again = run_dlsim("sweep " + spec + " --out " + resumed + " --jobs 2", dir);
  REQUIRE(again.code == 0);
  CHECK_THAT(again.out, Catch::Contains("runs were already done"));
  CHECK(read_file(resumed + "/results.csv") == read_file(whole + "/results.csv"));

  // A third start has nothing left to do and leaves results.csv as it was.
  Outcome third = run_dlsim("sweep " + spec + " --out " + resumed, dir);
  CHECK(third.code == 0);
  CHECK_THAT(third.out, Catch::Contains("30 of 30 runs were already done"));
  CHECK(read_file(resumed + "/results.csv") == read_file(whole + "/results.csv"));
}

TEST_CASE("a point whose experiment does not load stops the sweep before its first run",
          "[sweep][cli][errors]") {
  ScratchDir dir;
  // A generated trace needs trace.generate.jobs: the second point lacks it (the first has it).
  dir.write("gen.yaml", "cluster: configs/clusters/small.yaml\n"
                        "trace: {generate: {arrival_rate: 2}}\n");
  std::string spec = dir.write("spec.yaml", "experiment: gen.yaml\n"
                                            "list:\n  - {trace.generate.jobs: 10}\n"
                                            "  - {seed: 2}\n");
  Outcome r = run_dlsim("sweep " + spec + " --out " + dir.file("s"), dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("spec.yaml: run 1 ("));
  CHECK_THAT(r.err, Catch::Contains("trace.generate: missing required key 'jobs'"));
  // Nothing ran and nothing was written: not even the plan.
  CHECK_FALSE(fs::exists(dir.file("s/sweep.json")));
  CHECK_FALSE(fs::exists(dir.file("s/runs")));
}

TEST_CASE("a failing run is recorded, the others go on and the exit code is 1",
          "[sweep][cli][errors]") {
  ScratchDir dir;
  // The middle trace has a bad row: only its run can find that (a policy name or a key would
  // stop the sweep before its first run, as tested above).
  std::string header = "id,submit_s,workers,duration_s\n";
  std::string a = dir.write("a.csv", header + "j,0,1,7200\n");
  std::string bad = dir.write("bad.csv", header + "j,0,x,10\n");
  std::string c = dir.write("c.csv", header + "j,0,2,7200\n");
  std::string spec = dir.write("spec.yaml", "grid:\n  trace.file: [" + a + ", " + bad + ", " + c +
                                                "]\nset: {until_s: 3600}\n");
  Outcome r = run_dlsim("sweep " + spec + " --out " + dir.file("s"), dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("3 runs: 2 ok, 1 failed"));
  CHECK_THAT(r.out, Catch::Contains("bad.csv:2: workers: expected an integer, got 'x'"));
  CsvTable t = read_csv_table(dir.file("s/results.csv"));
  REQUIRE(t.rows.size() == 3);
  CHECK(column(t, 0, "status") == "ok");
  CHECK(column(t, 1, "status") == "failed");
  CHECK_THAT(column(t, 1, "error"), Catch::Contains("workers: expected an integer"));
  CHECK(column(t, 1, "jct_mean_s").empty());
  CHECK(column(t, 2, "status") == "ok");
  // until_s = 3600 s stops every run at one simulated hour: the 7,200 s job is still running.
  CHECK(column(t, 2, "makespan_s") == "3600.0");
}

TEST_CASE("a finished run whose resolved config changed is run again", "[sweep][cli]") {
  ScratchDir dir;
  std::string spec =
      dir.write("spec.yaml", "grid: {policy.name: [fifo, sjf]}\nset: {until_s: 3600}\n");
  REQUIRE(run_dlsim("sweep " + spec + " --out " + dir.file("s"), dir).code == 0);
  CHECK_THAT(run_dlsim("sweep " + spec + " --out " + dir.file("s"), dir).out,
             Catch::Contains("2 of 2 runs were already done"));
  // The same ids, but a different base: both runs are stale.
  dir.write("spec.yaml", "grid: {policy.name: [fifo, sjf]}\nset: {until_s: 7200}\n");
  Outcome r = run_dlsim("sweep " + spec + " --out " + dir.file("s"), dir);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, !Catch::Contains("already done"));
  CsvTable t = read_csv_table(dir.file("s/results.csv"));
  CHECK(column(t, 0, "makespan_s") == "7200.0");
}

TEST_CASE("sweep --emit list, --only and --collect split a sweep across machines", "[sweep][cli]") {
  ScratchDir dir;
  std::string spec =
      dir.write("spec.yaml", "grid: {policy.name: [fifo, sjf, srtf]}\nset: {until_s: 3600}\n");
  std::string out = dir.file("s");
  Outcome list = run_dlsim("sweep " + spec + " --out " + out + " --emit list", dir);
  REQUIRE(list.code == 0);
  // One line per run, each running that run's index.
  CHECK(std::count(list.out.begin(), list.out.end(), '\n') == 3);
  CHECK_THAT(list.out, Catch::Contains("--only 0\n") && Catch::Contains("--only 2\n"));
  CHECK_THAT(list.out, Catch::Contains("sweep '" + spec + "' --out '" + out + "'"));
  // Run the middle one only, then collect: one ok, two missing, exit code 1.
  Outcome one = run_dlsim("sweep " + spec + " --out " + out + " --only 1", dir);
  CHECK(one.code == 0);
  Outcome c = run_dlsim("sweep --collect " + out, dir);
  CHECK(c.code == 1);
  CHECK_THAT(c.out, Catch::Contains("3 runs: 1 ok, 0 failed, 2 missing"));
  CsvTable t = read_csv_table(out + "/results.csv");
  CHECK(column(t, 0, "status") == "missing");
  CHECK(column(t, 1, "status") == "ok");
  CHECK(column(t, 1, "policy") == "sjf");
  CHECK(run_dlsim("sweep " + spec + " --out " + out + " --only 3", dir).code == 2);
  CHECK(run_dlsim("sweep " + spec + " --out " + out + " --emit pbs", dir).code == 2);
  CHECK(run_dlsim("sweep --collect " + dir.file("nowhere"), dir).code == 1);
}

// Hidden ("[.]"): ctest runs it as its own test, slurm_sweep (tests/CMakeLists.txt), which
// reports SKIPPED (exit 77) when no Slurm runs here; run directly, it fails without Slurm.
TEST_CASE("a sweep submitted to Slurm as a job array gives the local sweep's results.csv",
          "[.][sweep][slurm]") {
  ScratchDir dir;
  // 3 policies x 2 seeds = 6 array tasks.
  std::string spec =
      dir.write("spec.yaml", "grid:\n  policy.name: [fifo, sjf, srtf]\n  seed: [1, 2]\n");
  std::string local = dir.file("local");
  std::string slurm = dir.file("slurm");
  REQUIRE(run_dlsim("sweep " + spec + " --out " + local + " --jobs 2", dir).code == 0);
  Outcome emit = run_dlsim("sweep " + spec + " --out " + slurm + " --emit slurm", dir);
  REQUIRE(emit.code == 0);
  CHECK_THAT(emit.out, Catch::Contains("#SBATCH --array=0-5\n"));
  std::string id_file = dir.file("jobid.txt");
  REQUIRE(std::system(
              ("sbatch --parsable '" + slurm + "/sweep.sbatch' > '" + id_file + "'").c_str()) == 0);
  std::string job = read_file(id_file);
  job.erase(job.find_last_not_of(" \n;") + 1);
  job = job.substr(0, job.find(';'));
  REQUIRE_FALSE(job.empty());
  // Wait (at most 180 s) until no task of the array is queued or running.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  std::string queue_file = dir.file("squeue.txt");
  bool finished = false;
  while (std::chrono::steady_clock::now() < deadline) {
    int q = std::system(fmt::format("squeue -h -j {} > '{}' 2>/dev/null", job, queue_file).c_str());
    if (q == 0 && read_file(queue_file).empty()) {
      finished = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  if (!finished) std::system(("scancel " + job).c_str());
  REQUIRE(finished);
  Outcome c = run_dlsim("sweep --collect " + slurm, dir);
  CHECK(c.code == 0);
  CHECK_THAT(c.out, Catch::Contains("6 runs: 6 ok"));
  CHECK(read_file(slurm + "/results.csv") == read_file(local + "/results.csv"));
}
