// dlsim compare and run --check-against: identical pairs pass, planted regressions fail, sweeps
// match by run id; and the golden summaries of the bundled experiments (tests/golden/).
#include "sim/cli/compare.h"
#include "tests/support/harness.h"

#include <boost/program_options/errors.hpp>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <sys/wait.h>

using namespace dlsim;
using namespace dlsim::test;
namespace fs = std::filesystem;

namespace {

const CompareRow& row_of(const Comparison& c, const std::string& run, const std::string& metric) {
  for (const auto& r : c.rows) {
    if (r.run == run && r.metric == metric) return r;
  }
  FAIL("no row " << run << "/" << metric);
  return c.rows.front();
}

constexpr const char* kSummary = R"({
  "policy": "fifo",
  "jobs": 4,
  "makespan_s": 200.0,
  "jct_mean_s": 100.0,
  "preemptions": 0
}
)";

} // namespace

TEST_CASE("compare: an identical pair passes, a planted regression is flagged", "[compare]") {
  ScratchDir dir;
  std::string a = dir.write("a.json", kSummary);
  std::string same = dir.write("same.json", kSummary);
  std::string worse = dir.write("worse.json", R"({"policy": "fifo", "jobs": 4, "makespan_s": 200.0,
    "jct_mean_s": 110.0, "preemptions": 3})");
  CompareOptions o;
  Comparison c = compare_result_sets(read_result_set(a), read_result_set(same), o);
  CHECK(c.rows.size() == 5);
  CHECK(c.changed == 0);
  CHECK(c.beyond == 0);

  c = compare_result_sets(read_result_set(a), read_result_set(worse), o);
  // jct_mean_s 100 -> 110: (110 - 100) / 100 = +0.1; preemptions 0 -> 3: from zero, infinite.
  CHECK(row_of(c, "", "jct_mean_s").relative.value() == Approx(0.1));
  CHECK(row_of(c, "", "jct_mean_s").beyond);
  CHECK(std::isinf(row_of(c, "", "preemptions").relative.value()));
  CHECK_FALSE(row_of(c, "", "makespan_s").changed);
  CHECK(c.beyond == 2);
  // A 10 % tolerance on JCT admits +10 % exactly (0.1 <= 0.1), 5 % does not.
  add_tolerance(o, "jct_mean_s=0.1");
  CHECK_FALSE(compare_result_sets(read_result_set(a), read_result_set(worse), o).rows[3].beyond);
  add_tolerance(o, "jct_mean_s=0.05");
  CHECK(compare_result_sets(read_result_set(a), read_result_set(worse), o).rows[3].beyond);
  // --metrics leaves the rest out.
  o.metrics = {"makespan_s", "jct_mean_s"};
  c = compare_result_sets(read_result_set(a), read_result_set(worse), o);
  CHECK(c.rows.size() == 2);
  CHECK(c.beyond == 1);
  // Names that match nothing are usage errors, not silent passes.
  o.metrics = {"jct_mean"};
  CHECK_THROWS_WITH(compare_result_sets(read_result_set(a), read_result_set(worse), o),
                    Catch::Contains("unknown metric 'jct_mean'"));
  CHECK_THROWS_AS(add_tolerance(o, "jct=-1"), boost::program_options::error);
  CHECK_THROWS_AS(add_tolerance(o, "=0.1"), boost::program_options::error);
  // A text value that changes is flagged whatever the tolerance.
  CompareOptions loose;
  add_tolerance(loose, "10");
  std::string other = dir.write("other.json", R"({"policy": "sjf", "jobs": 4, "makespan_s": 200.0,
    "jct_mean_s": 100.0, "preemptions": 0})");
  c = compare_result_sets(read_result_set(a), read_result_set(other), loose);
  CHECK(c.beyond == 1);
  CHECK(row_of(c, "", "policy").beyond);

  std::ostringstream table;
  print_comparison(
      table, compare_result_sets(read_result_set(a), read_result_set(worse), CompareOptions{}), "a",
      "b", false);
  CHECK_THAT(table.str(), Catch::Contains("+10%  << REGRESSION: beyond tolerance 0"));
  CHECK_THAT(table.str(), Catch::Contains("compare: REGRESSION: 2 of 5 values beyond tolerance"));
}

TEST_CASE("compare: directions, one-sided and absolute tolerances", "[compare]") {
  ScratchDir dir;
  std::string a = dir.write("a.json", R"({"policy": "fifo", "jobs": 4, "makespan_s": 200.0,
    "jct_mean_s": 100.0, "gpu_util_alloc": 0.5, "events": 8})");
  // JCT 100 -> 90 (-10%: better, lower is better), utilization 0.5 -> 0.4 (-20%: worse, higher is
  // better), makespan 200 -> 202 (+1%: worse), events 8 -> 9 (no better direction).
  std::string b = dir.write("b.json", R"({"policy": "fifo", "jobs": 4, "makespan_s": 202.0,
    "jct_mean_s": 90.0, "gpu_util_alloc": 0.4, "events": 9})");
  CHECK(default_direction("jct_p99_s") == Better::kLower);
  CHECK(default_direction("gpu_util_effective") == Better::kHigher);
  CHECK(default_direction("jobs") == Better::kEither);
  CompareOptions o;
  Comparison c = compare_result_sets(read_result_set(a), read_result_set(b), o);
  CHECK(row_of(c, "", "jct_mean_s").verdict == Verdict::kImproved);
  CHECK(row_of(c, "", "gpu_util_alloc").verdict == Verdict::kRegression);
  CHECK(row_of(c, "", "makespan_s").verdict == Verdict::kRegression);
  CHECK(row_of(c, "", "events").verdict == Verdict::kChanged);
  CHECK(row_of(c, "", "jobs").verdict == Verdict::kSame);
  CHECK(c.improved == 1);
  CHECK(c.regressions == 2);
  CHECK(c.fails == 4); // without --worse-only an improvement fails too: the baseline is stale

  // --worse-only: the improvement passes; the rest still fails.
  o.worse_only = true;
  c = compare_result_sets(read_result_set(a), read_result_set(b), o);
  CHECK_FALSE(row_of(c, "", "jct_mean_s").fails);
  CHECK(c.fails == 3);
  // makespan moved by 2 s = 1%: an absolute tolerance of 2 s admits it (|202 - 200| <= 2), as does
  // a relative one of 1% (2 / 200 = 0.01 <= 0.01); 1.5 s does not.
  add_abs_tolerance(o, "makespan_s=1.5");
  CHECK(row_of(compare_result_sets(read_result_set(a), read_result_set(b), o), "", "makespan_s")
            .beyond);
  add_abs_tolerance(o, "makespan_s=2");
  CHECK(row_of(compare_result_sets(read_result_set(a), read_result_set(b), o), "", "makespan_s")
            .verdict == Verdict::kWithin);
  // events declared lower-is-better: 8 -> 9 is now a regression.
  add_direction(o, "events=lower");
  CHECK(row_of(compare_result_sets(read_result_set(a), read_result_set(b), o), "", "events")
            .verdict == Verdict::kRegression);
  CHECK_THROWS_AS(add_direction(o, "events=up"), boost::program_options::error);
  CHECK_THROWS_AS(add_abs_tolerance(o, "makespan_s=-1"), boost::program_options::error);
  // --metrics keeps its own order.
  CompareOptions ordered;
  ordered.metrics = {"gpu_util_alloc", "jct_mean_s"};
  c = compare_result_sets(read_result_set(a), read_result_set(b), ordered);
  REQUIRE(c.rows.size() == 2);
  CHECK(c.rows[0].metric == "gpu_util_alloc");
  CHECK(c.rows[1].metric == "jct_mean_s");

  std::ostringstream table;
  print_comparison(table, compare_result_sets(read_result_set(a), read_result_set(b), {}), "a", "b",
                   false);
  CHECK_THAT(table.str(), Catch::Contains("-10%  << IMPROVED: beyond tolerance 0"));
  CHECK_THAT(table.str(), Catch::Contains("-20%  << REGRESSION: beyond tolerance 0"));
  CHECK_THAT(table.str(), Catch::Contains("compare: REGRESSION: 4 of 6 values beyond tolerance: 2 "
                                          "worse, 1 better, 1 changed (a vs b)"));
}

TEST_CASE("dlsim compare: several files against one baseline, --worse-only", "[compare][cli]") {
  ScratchDir dir;
  std::string a = dir.write("a.json", R"({"jobs": 4, "makespan_s": 200.0, "jct_mean_s": 100.0})");
  std::string better =
      dir.write("better.json", R"({"jobs": 4, "makespan_s": 200.0, "jct_mean_s": 90.0})");
  std::string worse =
      dir.write("worse.json", R"({"jobs": 4, "makespan_s": 200.0, "jct_mean_s": 110.0})");
  Outcome both = run_dlsim("compare " + a + " " + better + " " + a, dir);
  CHECK(both.code == 1); // better.json's improvement is beyond the zero tolerance
  CHECK_THAT(both.out, Catch::Contains("== " + better) && Catch::Contains("== " + a) &&
                           Catch::Contains("compare: IMPROVED: 1 of 3") &&
                           Catch::Contains("compare: OK: 3 values compared"));
  Outcome one_sided = run_dlsim("compare " + a + " " + better + " " + a + " --worse-only", dir);
  CHECK(one_sided.code == 0);
  CHECK_THAT(one_sided.out, Catch::Contains("(--worse-only: not a failure)"));
  CHECK(run_dlsim("compare " + a + " " + better + " " + worse + " --worse-only", dir).code == 1);
  CHECK(run_dlsim("compare " + a + " " + worse + " --worse-only -t jct_mean_s=0.1", dir).code == 0);
}

TEST_CASE("compare: sweep results match by run id, whatever the row order", "[compare]") {
  ScratchDir dir;
  std::string base = dir.write("base.csv", "run,policy.name,status,error,jct_mean_s\n"
                                           "fifo-aa,fifo,ok,,100\n"
                                           "sjf-bb,sjf,ok,,50\n"
                                           "srtf-cc,srtf,ok,,40\n");
  std::string reordered = dir.write("new.csv", "run,policy.name,status,error,jct_mean_s\n"
                                               "srtf-cc,srtf,ok,,40\n"
                                               "fifo-aa,fifo,ok,,100\n"
                                               "sjf-bb,sjf,ok,,50\n");
  Comparison c =
      compare_result_sets(read_result_set(base), read_result_set(reordered), CompareOptions{});
  CHECK(c.beyond == 0);
  CHECK(c.rows.size() == 6); // 3 runs x (status, jct_mean_s)
  std::string broken = dir.write("broken.csv", "run,policy.name,status,error,jct_mean_s\n"
                                               "fifo-aa,fifo,ok,,100\n"
                                               "sjf-bb,sjf,failed,boom,\n"
                                               "new-dd,las,ok,,1\n");
  c = compare_result_sets(read_result_set(base), read_result_set(broken), CompareOptions{});
  CHECK(row_of(c, "sjf-bb", "status").beyond);     // ok -> failed
  CHECK(row_of(c, "sjf-bb", "jct_mean_s").beyond); // 50 -> (empty)
  CHECK(row_of(c, "srtf-cc", "(run)").new_text == "(missing)");
  CHECK(row_of(c, "new-dd", "(run)").old_text == "(missing)");
  CHECK(c.beyond == 4);
  CHECK_THROWS_WITH(compare_result_sets(read_result_set(base),
                                        read_result_set(dir.write("s.json", kSummary)),
                                        CompareOptions{}),
                    Catch::Contains("cannot compare"));
}

TEST_CASE("dlsim compare exits 0 for an identical pair and 1 for a regression", "[compare][cli]") {
  ScratchDir dir;
  REQUIRE(run_dlsim("run -q --out " + dir.file("r"), dir).code == 0);
  std::string golden = dir.file("r/summary.json");
  Outcome same = run_dlsim("compare " + golden + " " + dir.file("r"), dir);
  CHECK(same.code == 0);
  CHECK_THAT(same.out, Catch::Contains("compare: OK: ") &&
                           Catch::Contains(" values compared, 0 changed, none beyond tolerance"));
  // Plant a regression: SJF instead of FIFO on the same experiment.
  REQUIRE(run_dlsim("run -q --policy sjf --out " + dir.file("sjf"), dir).code == 0);
  Outcome worse =
      run_dlsim("compare " + golden + " " + dir.file("sjf/summary.json") + " --changed", dir);
  CHECK(worse.code == 1);
  // SJF's mean JCT is lower than FIFO's: better, but still beyond the zero tolerance.
  CHECK_THAT(worse.out,
             Catch::Contains("jct_mean_s") && Catch::Contains("<< IMPROVED: beyond tolerance 0"));
  CHECK_THAT(worse.out, Catch::Contains("policy") && Catch::Contains("<< CHANGED"));
  CHECK(run_dlsim("compare " + golden, dir).code == 2);
  CHECK(run_dlsim("compare " + golden + " " + golden + " --metrics nope", dir).code == 2);
  CHECK(run_dlsim("compare " + golden + " " + dir.file("missing.json"), dir).code == 1);

  // run --check-against: the same check after a run.
  Outcome ok = run_dlsim("run -q --out " + dir.file("again") + " --check-against " + golden, dir);
  CHECK(ok.code == 0);
  CHECK(ok.out.empty());
  Outcome bad = run_dlsim(
      "run -q --policy sjf --out " + dir.file("sjf2") + " --check-against " + golden, dir);
  CHECK(bad.code == 1);
  CHECK_THAT(bad.out, Catch::Contains("policy") && Catch::Contains("<< CHANGED"));
  // Only the policy name is compared, under a tolerance: still a regression (fifo -> sjf).
  CHECK(run_dlsim("run -q --policy sjf --out " + dir.file("sjf3") + " --check-against " + golden +
                      " --metrics policy",
                  dir)
            .code == 1);
}

TEST_CASE("every bundled experiment matches its golden summary", "[compare][golden]") {
  const fs::path golden_dir = fs::path(DLSIM_SOURCE_DIR_FOR_TESTS) / "tests/golden";
  const fs::path experiments = fs::path(DLSIM_SOURCE_DIR_FOR_TESTS) / "configs/experiments";
  std::vector<fs::path> goldens;
  for (const auto& f : fs::directory_iterator(golden_dir)) {
    if (f.path().string().ends_with(".summary.json")) goldens.push_back(f.path());
  }
  std::sort(goldens.begin(), goldens.end());
  REQUIRE_FALSE(goldens.empty());
  for (const auto& golden : goldens) {
    std::string name = golden.filename().string();
    name = name.substr(0, name.size() - std::string(".summary.json").size());
    fs::path experiment = experiments / (name + ".yaml");
    INFO("golden " << golden.string() << " (regenerate with scripts/update-golden " << name << ")");
    REQUIRE(fs::exists(experiment));
    ScratchDir dir;
    Outcome r = run_dlsim("run -q -e " + experiment.string() + " --out " + dir.file("out") +
                              " --check-against " + golden.string(),
                          dir);
    INFO(r.out << r.err);
    CHECK(r.code == 0);
  }
  for (const auto& f : fs::directory_iterator(experiments)) {
    // Only experiments (a top-level `cluster:`): the folder also holds inputs such as a search
    // sessions file.
    const std::string text = read_file(f.path().string());
    const bool is_experiment =
        text.starts_with("cluster:") || text.find("\ncluster:") != std::string::npos;
    if (f.path().extension() == ".yaml" && is_experiment &&
        !fs::exists(golden_dir / (f.path().stem().string() + ".summary.json"))) {
      WARN("no golden summary for " << f.path().string() << ": add it with scripts/update-golden "
                                    << f.path().stem().string());
    }
  }
}
