// `dlsim plot` and `dlsim table` end to end: the data files fed to gnuplot checked against hand
// numbers of a small FIFO case and against the default experiment's summary, the pictures
// rendered, and the table's rows.
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace dlsim::test;

namespace {

// The data lines (not comments) of one block of a gnuplot data file; blocks are separated by two
// blank lines.
std::vector<std::string> block(const std::string& text, std::size_t index) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  std::size_t current = 0, blanks = 0;
  while (std::getline(in, line)) {
    if (line.empty()) {
      if (++blanks == 2) ++current;
      continue;
    }
    blanks = 0;
    if (line[0] == '#' || current != index) continue;
    out.push_back(line);
  }
  return out;
}

// The FIFO hand case of tests/outputs_test.cpp ("events.csv alone tells which job blocked
// another"): one node of 4 V100s; a (3 GPUs, 0-100 s), b (2 GPUs, submitted 10 s, runs
// 100-150 s on GPUs 0 1), c (1 GPU, submitted 20 s, runs 100-130 s on GPU 2).
void run_hand_case(const ScratchDir& dir, const std::string& policy, const std::string& out) {
  dir.write("four.yaml", "nodes:\n  - {count: 1, devices: {V100: 4}}\n");
  dir.write("t.csv", "id,submit_s,workers,duration_s\na,0,3,100\nb,10,2,50\nc,20,1,30\n");
  Outcome r =
      run_dlsim("run -q --policy " + policy + " --cluster " + dir.file("four.yaml") + " --trace " +
                    dir.file("t.csv") + " --set report.sample_s=25 --out " + dir.file(out),
                dir);
  REQUIRE(r.err.empty());
  REQUIRE(r.code == 0);
}

} // namespace

TEST_CASE("dlsim plot's data files of a hand FIFO case", "[plot]") {
  ScratchDir dir;
  run_hand_case(dir, "fifo", "res");
  Outcome r = run_dlsim("plot --no-render " + dir.file("res") + " -o " + dir.file("p"), dir);
  REQUIRE(r.code == 0);
  CHECK(r.out ==
        "data files and plot.gp in " + dir.file("p") + "/ (run `gnuplot plot.gp` there)\n");

  // JCTs: a 100 - 0 = 100, b 150 - 10 = 140, c 130 - 20 = 110. Sorted 100, 110, 140 at 1/3,
  // 2/3, 3/3.
  std::string cdf = read_file(dir.file("p/jct_cdf.dat"));
  CHECK_THAT(cdf, Catch::Contains("# run: res\n"));
  CHECK(block(cdf, 0) ==
        std::vector<std::string>{"100 0.3333333333333333", "110 0.6666666666666666", "140 1"});

  // Samples every 25 s, 0..150, written where a value changes (docs/outputs.md). Allocated
  // GPUs: a's 3 until 100, then b's 2 + c's 1 = 3 until 130, b's 2 at 130..150 is not sampled
  // (grid times 125 and 150), none at 150: 3/4 = 0.75 then 0. Effective: each duration-only job
  // runs at the default gpu_util 0.52, so 3 x 0.52 / 4 = 0.39. pending, running: at 0 a runs; at
  // 25, 50 and 75 b and c wait (submitted at 10 and 20; FIFO keeps c behind b); at 100 and 125 b
  // and c run; at 150 all are done. So rows at 0, 25 (the queue), 100 (the queue again) and 150
  // (everything); 50, 75 and 125 repeat the row before them and are left out.
  auto util = block(read_file(dir.file("p/utilization.dat")), 0);
  REQUIRE(util.size() == 4);
  const double times[] = {0, 25, 100, 150};
  for (std::size_t i = 0; i < util.size(); ++i) {
    std::istringstream row(util[i]);
    double t = 0, alloc = 0, effective = 0;
    row >> t >> alloc >> effective;
    INFO(util[i]);
    CHECK(t == times[i]);
    CHECK(alloc == (i < 3 ? 0.75 : 0.0));
    CHECK(effective == Approx(i < 3 ? 0.39 : 0.0).margin(1e-12));
  }
  CHECK(block(read_file(dir.file("p/queue.dat")), 0) ==
        std::vector<std::string>{"0 0 1", "25 2 1", "100 0 2", "150 0 0"});

  // Gantt from events.csv: device start end job_index job row rows, jobs numbered by first
  // appearance; FIFO shares no device, so each has one row.
  CHECK(block(read_file(dir.file("p/gantt.dat")), 0) ==
        std::vector<std::string>{"0 0 100 1 a 0 1", "0 100 150 2 b 0 1", "1 0 100 1 a 0 1",
                                 "1 100 150 2 b 0 1", "2 0 100 1 a 0 1", "2 100 130 3 c 0 1"});

  std::string script = read_file(dir.file("p/plot.gp"));
  for (const char* out :
       {"set output 'jct_cdf.png'", "set output 'jct_cdf.svg'", "set output 'utilization.png'",
        "set output 'queue.svg'", "set output 'gantt.png'"}) {
    CHECK_THAT(script, Catch::Contains(out));
  }
  // One cluster kind (gpu): its allocated and effective lines, columns 2 and 3, the first two
  // colours of the palette.
  CHECK_THAT(script, Catch::Contains("'utilization.dat' index 0 using ($1/3600):2 with steps lw 2 "
                                     "lc rgb '#0072B2' dt 1 title 'gpu allocated'"));
  CHECK_THAT(script, Catch::Contains("using ($1/3600):3 with steps lw 1 lc rgb '#D55E00' dt 1 "
                                     "title 'gpu effective'"));
  // Then the GPUs' kernel-busy figure (timeseries.csv's busy_gpu_util), column 4, and nothing
  // after it.
  CHECK_THAT(script, Catch::Contains("using ($1/3600):4 with steps lw 1 lc rgb '#009E73' dt 1 "
                                     "title 'gpu busy (nvidia-smi)'"));
  CHECK_THAT(script, !Catch::Contains("utilization.dat' index 0 using ($1/3600):5"));
}

TEST_CASE("dlsim plot overlays several runs on one CDF and renders PNG and SVG", "[plot]") {
  ScratchDir dir;
  run_hand_case(dir, "fifo", "fifo-run");
  run_hand_case(dir, "srtf", "srtf-run");
  Outcome r = run_dlsim("plot -q " + dir.file("fifo-run") + " " + dir.file("srtf-run"), dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.empty());
  std::string out = dir.file("fifo-run-plots");
  std::string cdf = read_file(out + "/jct_cdf.dat");
  CHECK(block(cdf, 0).size() == 3);
  // srtf on the same case, with the default experiment's costs (suspend_s 5, resume_s 5): at
  // 10 s b (50 s left) outranks a (90 s left); a suspends 10-15, b runs 15-65 (JCT 55). c (30
  // s) fits the free GPU at 20 s: 20-50 (JCT 30). a resumes at 65, pays 5 s and runs its 90 s:
  // 70-160 (JCT 160).
  CHECK(block(cdf, 1) ==
        std::vector<std::string>{"30 0.3333333333333333", "55 0.6666666666666666", "160 1"});
  std::string script = read_file(out + "/plot.gp");
  CHECK_THAT(script, Catch::Contains("'jct_cdf.dat' index 1 using ($1/3600):2 with steps lw 2 "
                                     "lc rgb '#D55E00' dt 1 title 'srtf-run'"));
  CHECK_THAT(script, Catch::Contains("title 'srtf-run gpu allocated'"));
  // Each picture is a real PNG or SVG holding its chart's title.
  for (const char* chart : {"jct_cdf", "utilization", "queue", "gantt"}) {
    std::string png = read_file(out + "/" + chart + ".png");
    REQUIRE(png.size() > 8);
    CHECK(png.substr(1, 3) == "PNG");
    std::string svg = read_file(out + "/" + chart + ".svg");
    CHECK_THAT(svg, Catch::Contains("<svg"));
  }
  CHECK_THAT(read_file(out + "/jct_cdf.svg"), Catch::Contains("JCT CDF (finished jobs)"));
  CHECK_THAT(read_file(out + "/gantt.svg"), Catch::Contains("device occupancy: fifo-run"));
}

TEST_CASE("dlsim plot's CDF and utilization of the default experiment agree with its summary",
          "[plot]") {
  ScratchDir dir;
  REQUIRE(run_dlsim("run -q --out " + dir.file("res"), dir).code == 0);
  REQUIRE(run_dlsim("plot -q --no-render " + dir.file("res"), dir).code == 0);
  auto cdf = block(read_file(dir.file("res-plots/jct_cdf.dat")), 0);
  // 500 finished jobs; the mean of the CDF's x values is summary.json's jct_mean_s,
  // 41954.27145 s (docs/outputs.md#summaryjson); the 250th of 500 sits at 0.5.
  REQUIRE(cdf.size() == 500);
  double sum = 0;
  for (const auto& line : cdf)
    sum += std::stod(line.substr(0, line.find(' ')));
  CHECK(sum / 500 == Approx(41954.27145).margin(1e-5));
  CHECK(cdf[249].substr(cdf[249].find(' ') + 1) == "0.5");
  CHECK(cdf[499].substr(cdf[499].find(' ') + 1) == "1");
  // The time average of the sampled allocated fraction approximates gpu_util_alloc, 0.35901
  // (an integral over time; samples every 60 s of a 349,168 s run, so within 0.002). Rows are
  // change points: each value holds until the next row's time.
  auto util = block(read_file(dir.file("res-plots/utilization.dat")), 0);
  REQUIRE(util.size() > 2);
  std::vector<std::pair<double, double>> points; // time, allocated fraction
  for (const auto& line : util) {
    std::istringstream row(line);
    double t = 0, a = 0;
    row >> t >> a;
    points.emplace_back(t, a);
  }
  double area = 0;
  for (std::size_t i = 0; i + 1 < points.size(); ++i)
    area += points[i].second * (points[i + 1].first - points[i].first);
  const double alloc = area / (points.back().first - points.front().first);
  CHECK(alloc == Approx(0.35901).margin(0.002));
  // 500 jobs on 32 GPUs: small enough for the Gantt chart by default; FIFO never preempts, so
  // one segment per job and GPU.
  std::istringstream gantt(read_file(dir.file("res-plots/gantt.dat")));
  std::string line;
  std::size_t segments = 0;
  while (std::getline(gantt, line))
    if (!line.empty() && line[0] != '#') ++segments;
  std::istringstream jobs(read_file(dir.file("res/jobs.csv")));
  std::getline(jobs, line);
  std::size_t gpus = 0;
  while (std::getline(jobs, line)) {
    // gpus is the 8th column; the ids and models of the default trace hold no commas.
    std::istringstream f(line);
    std::string field;
    for (int c = 0; c < 8; ++c)
      std::getline(f, field, ',');
    gpus += std::stoul(field);
  }
  CHECK(segments == gpus);
}

TEST_CASE("dlsim plot: errors name what is missing", "[plot][errors]") {
  ScratchDir dir;
  Outcome none = run_dlsim("plot", dir);
  CHECK(none.code == 2);
  CHECK_THAT(none.err, Catch::Contains("give at least one RUN_DIR"));
  Outcome missing = run_dlsim("plot --no-render " + dir.file("nothing"), dir);
  CHECK(missing.code == 1);
  CHECK_THAT(missing.err, Catch::Contains(dir.file("nothing") + ": not a directory"));
  run_hand_case(dir, "fifo", "res");
  ::setenv("DLSIM_GNUPLOT", "/nonexistent/gnuplot", 1);
  Outcome no_gnuplot = run_dlsim("plot " + dir.file("res"), dir);
  ::unsetenv("DLSIM_GNUPLOT");
  CHECK(no_gnuplot.code == 1);
  CHECK_THAT(no_gnuplot.err, Catch::Contains("gnuplot not found"));
  CHECK_THAT(no_gnuplot.err, Catch::Contains("apt-get install gnuplot-nox"));
  CHECK_FALSE(std::filesystem::exists(dir.file("res-plots")));
  Outcome no_events_run =
      run_dlsim("run -q --events off --policy fifo --cluster " + dir.file("four.yaml") +
                    " --trace " + dir.file("t.csv") + " --out " + dir.file("quiet"),
                dir);
  REQUIRE(no_events_run.code == 0);
  Outcome gantt = run_dlsim("plot --no-render --gantt on " + dir.file("quiet"), dir);
  CHECK(gantt.code == 1);
  CHECK_THAT(gantt.err, Catch::Contains("no events.csv"));
}

TEST_CASE("dlsim table: one row per run, the differing parameters, text, CSV and Markdown",
          "[table]") {
  ScratchDir dir;
  run_hand_case(dir, "fifo", "fifo-run");
  run_hand_case(dir, "srtf", "srtf-run");
  std::string runs = " " + dir.file("fifo-run") + " " + dir.file("srtf-run");
  Outcome csv =
      run_dlsim("table --format csv --metrics jobs,jct_mean_s,util_by_kind.gpu.alloc" + runs, dir);
  REQUIRE(csv.code == 0);
  // JCT means: fifo (100 + 140 + 110) / 3 = 116.666667 (rounded to the microsecond in
  // summary.json); srtf (JCTs above) (55 + 30 + 160) / 3 = 81.666667. GPU allocated: fifo 3 GPUs
  // x 130 s + 2 x 20 s = 430 of 4 x 150 = 600: 0.71666...; srtf a 3 x 15 (suspending counts) +
  // b 2 x 50 + c 1 x 30 + a 3 x 95 = 460 of 4 x 160 = 640: 0.71875. The runs' run.yaml differ
  // in the policy and in fifo's parameter hetero, which srtf does not have: a parameter only
  // one run has tells nothing apart, so it has no column.
  CHECK(csv.out == "run,policy,seed,jobs,jct_mean_s,util_by_kind.gpu.alloc\n"
                   "fifo-run,fifo,1,3,116.666667,0.7166666666666667\n"
                   "srtf-run,srtf,1,3,81.666667,0.71875\n");
  Outcome text = run_dlsim("table --metrics jct_mean_s,util_by_kind.gpu.alloc" + runs, dir);
  REQUIRE(text.code == 0);
  CHECK(text.out == "run       policy  seed  jct_mean_s  util_by_kind.gpu.alloc\n"
                    "fifo-run  fifo       1       116.7                  0.7167\n"
                    "srtf-run  srtf       1        81.7                  0.7188\n");
  Outcome md = run_dlsim("table --format markdown --metrics jct_mean_s" + runs, dir);
  REQUIRE(md.code == 0);
  CHECK(md.out == "| run | policy | seed | jct_mean_s |\n"
                  "|---|---|---:|---:|\n"
                  "| fifo-run | fifo | 1 | 116.7 |\n| srtf-run | srtf | 1 | 81.7 |\n");
  // LaTeX: booktabs, text left, numbers right, underscores escaped.
  Outcome tex = run_dlsim("table --format latex --metrics jct_mean_s" + runs, dir);
  REQUIRE(tex.code == 0);
  CHECK(tex.out == "\\begin{tabular}{llrr}\n\\toprule\n"
                   "run & policy & seed & jct\\_mean\\_s \\\\\n\\midrule\n"
                   "fifo-run & fifo & 1 & 116.7 \\\\\nsrtf-run & srtf & 1 & 81.7 \\\\\n"
                   "\\bottomrule\n\\end{tabular}\n");
  // --columns: these, in this order, from summary.json or run.yaml.
  Outcome cols = run_dlsim(
      "table --format csv --columns policy,jct_mean_s,policy.params.hetero,cluster.nodes.0.count" +
          runs,
      dir);
  REQUIRE(cols.code == 0);
  CHECK(cols.out == "policy,jct_mean_s,policy.params.hetero,cluster.nodes.0.count\n"
                    "fifo,116.666667,false,1\nsrtf,81.666667,,1\n");
  Outcome unknown = run_dlsim("table --columns policy,jct_mean" + runs, dir);
  CHECK(unknown.code == 1);
  CHECK_THAT(unknown.err, Catch::Contains("--columns: no run has 'jct_mean'"));
  // Two FIFO runs that differ in hetero and an SRTF run: the parameter tells the FIFO runs
  // apart, so it has a column, empty for SRTF.
  run_hand_case(dir, "fifo --set policy.params.hetero=true", "fifo-hetero");
  Outcome three =
      run_dlsim("table --format csv --metrics jobs" + runs + " " + dir.file("fifo-hetero"), dir);
  REQUIRE(three.code == 0);
  CHECK(three.out == "run,policy,seed,policy.params.hetero,jobs\n"
                     "fifo-run,fifo,1,false,3\nsrtf-run,srtf,1,,3\nfifo-hetero,fifo,1,true,3\n");
  Outcome bad = run_dlsim("table --metrics jct_mean" + runs, dir);
  CHECK(bad.code == 1);
  CHECK_THAT(bad.err, Catch::Contains("no run's summary.json has 'jct_mean'"));
}
