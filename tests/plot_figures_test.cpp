// dlsim plot's figures for papers, each rendered and its structure checked in plot.gp and the
// data files: the JCT CDF's axis (log x when the JCTs span decades), one distinct style per
// series, labels, the normalized bar chart with its error bars, the Gantt chart's sub-rows for
// jobs sharing a device, and PDF at a column's size.
#include "sim/cli/analysis/plot_data.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// The hand case of plot_table_test.cpp: one node of 4 V100s, jobs a (3 GPUs, 100 s), b (2, 50 s,
// at 10 s), c (1, 30 s, at 20 s). FIFO's JCTs 100, 140, 110 (mean 116.666667); SRTF's 55, 30,
// 160 (mean 81.666667).
void run_case(const ScratchDir& dir, const std::string& policy, const std::string& out) {
  dir.write("four.yaml", "nodes:\n  - {count: 1, devices: {V100: 4}}\n");
  dir.write("t.csv", "id,submit_s,workers,duration_s\na,0,3,100\nb,10,2,50\nc,20,1,30\n");
  Outcome r = run_dlsim("run -q --policy " + policy + " --cluster " + dir.file("four.yaml") +
                            " --trace " + dir.file("t.csv") + " --out " + dir.file(out),
                        dir);
  REQUIRE(r.code == 0);
}

// The plot command of one chart in plot.gp (the first format's): from "set output 'NAME." to
// the end of its plot command.
std::string plot_command(const std::string& script, const std::string& chart) {
  auto at = script.find("set output '" + chart + ".");
  REQUIRE(at != std::string::npos);
  auto plot = script.find("\nplot ", at);
  REQUIRE(plot != std::string::npos);
  std::string out;
  std::istringstream in(script.substr(plot + 1));
  std::string line;
  while (std::getline(in, line)) {
    out += line + "\n";
    if (line.empty() || line.back() != '\\') break;
  }
  return out;
}

// The settings before a chart's plot command (its terminal, axes, key).
std::string chart_settings(const std::string& script, const std::string& chart) {
  auto at = script.find("set output '" + chart + ".");
  auto plot = script.find("\nplot ", at);
  auto start = script.rfind("set terminal", at);
  return script.substr(start, plot - start);
}

// Each series' "lc rgb '#xxxxxx' dt N" in a plot command, and how many have a legend entry.
std::vector<std::string> styles(const std::string& command) {
  std::vector<std::string> out;
  std::regex style("lc rgb '(#[0-9A-F]{6})' dt ([0-9]+)");
  for (auto it = std::sregex_iterator(command.begin(), command.end(), style);
       it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1].str() + " " + (*it)[2].str());
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

} // namespace

TEST_CASE("series styles: 8 colour-blind-safe colours, then dashed, never the same twice",
          "[plot][figures]") {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < 20; ++i)
    CHECK(seen.insert(series_style(i)).second);
  CHECK(series_style(0) == "lc rgb '#0072B2' dt 1");
  CHECK(series_style(8) == "lc rgb '#0072B2' dt 2"); // the palette again, dashed
  CHECK(t95(2) == 4.303);
  CHECK(t95(100) == 1.96);
}

TEST_CASE("dlsim plot: the JCT CDF's x axis is logarithmic when the JCTs span two decades",
          "[plot][figures]") {
  ScratchDir dir;
  run_case(dir, "fifo", "fifo");
  // 100 to 140 s: not even one decade, a linear axis by default.
  REQUIRE(run_dlsim("plot -q --no-render " + dir.file("fifo") + " -o " + dir.file("p"), dir).code ==
          0);
  std::string script = read_file(dir.file("p/plot.gp"));
  CHECK_THAT(chart_settings(script, "jct_cdf"), !Catch::Contains("\nset logscale x"));
  REQUIRE(
      run_dlsim("plot -q --no-render --logx on " + dir.file("fifo") + " -o " + dir.file("q"), dir)
          .code == 0);
  script = read_file(dir.file("q/plot.gp"));
  CHECK_THAT(chart_settings(script, "jct_cdf"),
             Catch::Contains("set logscale x") && Catch::Contains("JCT (h, log scale)"));
  // The default experiment's JCTs run from minutes to days: log x without asking.
  REQUIRE(run_dlsim("run -q --events off --timeline off --out " + dir.file("default"), dir).code ==
          0);
  REQUIRE(
      run_dlsim("plot -q --no-render " + dir.file("default") + " -o " + dir.file("d"), dir).code ==
      0);
  CHECK_THAT(chart_settings(read_file(dir.file("d/plot.gp")), "jct_cdf"),
             Catch::Contains("set logscale x"));
}

TEST_CASE("dlsim plot: a series per run, labels, one style per label, none repeated",
          "[plot][figures]") {
  ScratchDir dir;
  run_case(dir, "fifo", "fifo");
  run_case(dir, "srtf", "srtf");
  // Ten runs (the two directories five times), nine labels: the first two runs share "FIFO".
  std::string args = "plot -q --no-render -o " + dir.file("p");
  const char* labels[] = {"FIFO", "FIFO", "SRTF", "r3", "r4", "r5", "r6", "r7", "r8", "r9"};
  for (int i = 0; i < 10; ++i)
    args += " " + dir.file(i % 2 ? "srtf" : "fifo") + " --label " + labels[i];
  Outcome r = run_dlsim(args, dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::string cdf = plot_command(read_file(dir.file("p/plot.gp")), "jct_cdf");
  CHECK(count(cdf, "'jct_cdf.dat' index ") == 10);
  auto s = styles(cdf);
  REQUIRE(s.size() == 10);
  CHECK(s[0] == s[1]); // one label, one style
  CHECK(std::set<std::string>(s.begin() + 1, s.end()).size() == 9);
  CHECK(count(cdf, "notitle") == 1);
  CHECK(count(cdf, "title 'FIFO'") == 1);
  CHECK_THAT(cdf, Catch::Contains("dt 2 title 'r9'")); // the ninth label: past the palette
  // The queue chart: pending and running of each label, 18 styles, all different.
  auto q = styles(plot_command(read_file(dir.file("p/plot.gp")), "queue"));
  CHECK(q.size() == 20);
  CHECK(std::set<std::string>(q.begin(), q.end()).size() == 18);
  // A label count that does not match the runs is a usage error.
  Outcome bad = run_dlsim("plot --no-render " + dir.file("fifo") + " " + dir.file("srtf") +
                              " --label one -o " + dir.file("x"),
                          dir);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("one --label per RUN_DIR: 1 labels for 2 RUN_DIRs"));
}

TEST_CASE("dlsim plot --bars: metrics normalized to a baseline, error bars over runs",
          "[plot][figures]") {
  ScratchDir dir;
  run_case(dir, "fifo", "fifo");
  run_case(dir, "srtf", "srtf");
  // Baseline F: the FIFO run alone, mean JCT 116.666667 s. X: the FIFO and the SRTF run as two
  // runs of one configuration: mean (116.666667 + 81.666667) / 2 = 99.166667, s = 35 / sqrt(2)
  // = 24.7487, half-width t(0.975, 1) s / sqrt(2) = 12.706 x 17.5 = 222.355. Normalized by
  // 116.666667: 0.85 and 1.905900.
  Outcome r = run_dlsim("plot -q --format pdf --size one-column --bars jct_mean_s "
                        "--baseline F -o " +
                            dir.file("p") + " " + dir.file("fifo") + " --label F " +
                            dir.file("fifo") + " --label X " + dir.file("srtf") + " --label X",
                        dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::string data = read_file(dir.file("p/bars.dat"));
  std::istringstream in(data);
  std::string line, mean_jct;
  while (std::getline(in, line))
    if (line.starts_with("\"mean JCT\"")) mean_jct = line.substr(11);
  std::istringstream row(mean_jct);
  double f = 0, f_ci = 0, x = 0, x_ci = 0;
  row >> f >> f_ci >> x >> x_ci;
  CHECK(f == 1);
  CHECK(f_ci == 0); // one run
  CHECK(x == Approx(0.85).epsilon(1e-6));
  CHECK(x_ci == Approx(1.9059).epsilon(1e-4));
  std::string script = read_file(dir.file("p/plot.gp"));
  std::string bars = plot_command(script, "bars");
  CHECK(count(bars, "'bars.dat' using ") == 2); // a series per label
  CHECK_THAT(bars, Catch::Contains("using 2:3 ") && Catch::Contains("using 4:5 "));
  // A tick per metric, in words.
  CHECK_THAT(chart_settings(script, "bars"), Catch::Contains("set xtics nomirror noenhanced "
                                                             "(\"mean JCT\" 0)"));
  CHECK_THAT(chart_settings(script, "bars"), Catch::Contains("set style histogram errorbars") &&
                                                 Catch::Contains("set yrange [0:*]") &&
                                                 Catch::Contains("graph 0.1"));
}

TEST_CASE("dlsim plot --bars refuses a baseline of 0 and an unknown label", "[plot][figures]") {
  ScratchDir dir;
  run_case(dir, "fifo", "fifo");
  Outcome zero = run_dlsim(
      "plot --no-render --bars preemptions " + dir.file("fifo") + " -o " + dir.file("p"), dir);
  CHECK(zero.code == 1);
  CHECK_THAT(zero.err, Catch::Contains("'preemptions' is 0 for the baseline 'fifo'"));
  Outcome unknown = run_dlsim("plot --no-render --bars jct_mean_s --baseline nope " +
                                  dir.file("fifo") + " -o " + dir.file("p"),
                              dir);
  CHECK(unknown.code == 1);
  CHECK_THAT(unknown.err, Catch::Contains("no run is labelled 'nope'"));
}

TEST_CASE("dlsim plot: the Gantt chart gives jobs sharing a device sub-rows, PDF at a column's "
          "size",
          "[plot][figures]") {
  ScratchDir dir;
  REQUIRE(run_dlsim("run -q --policy gandiva --timeline off --out " + dir.file("g"), dir).code ==
          0);
  Outcome r = run_dlsim(
      "plot -q --format pdf --size one-column " + dir.file("g") + " -o " + dir.file("p"), dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  // Per device, no two segments in one sub-row overlap, every row is below the device's rows,
  // and gandiva's time slicing needs more than one row somewhere.
  std::istringstream in(read_file(dir.file("p/gantt.dat")));
  std::string line;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> rows;
  std::map<int, int> rows_of;
  int most = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    int device = 0, job_index = 0, row = 0, n = 0;
    double from = 0, to = 0;
    std::string job;
    f >> device >> from >> to >> job_index >> job >> row >> n;
    REQUIRE(f);
    CHECK(row < n);
    if (rows_of.count(device)) CHECK(rows_of[device] == n);
    rows_of[device] = n;
    most = std::max(most, n);
    rows[{device, row}].emplace_back(from, to);
  }
  CHECK(most > 1);
  for (auto& [key, spans] : rows) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      CHECK(spans[i].first >= spans[i - 1].second);
  }
  std::string script = read_file(dir.file("p/plot.gp"));
  CHECK_THAT(plot_command(script, "gantt"), Catch::Contains("with boxxyerror"));
  // PDF at one column: 3.5 x 2.4 in = 252 x 172.8 pt, without a title (a paper has captions).
  CHECK_THAT(chart_settings(script, "gantt"),
             Catch::Contains("pdfcairo size 3.5in,2.4in") && Catch::Contains("unset title"));
  for (const char* chart : {"jct_cdf", "utilization", "queue", "gantt"}) {
    std::string pdf = read_file(dir.file(std::string("p/") + chart + ".pdf"));
    CHECK(pdf.starts_with("%PDF-"));
    CHECK_THAT(pdf, Catch::Contains("/MediaBox [ 0 0 252 172"));
  }
}
