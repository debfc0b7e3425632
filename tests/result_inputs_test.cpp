// The analysis commands' reading of result files a user may have edited, cut or replaced (the
// inputs of the fuzz targets fuzz_plot, fuzz_compare and fuzz_table): dlsim plot's result directory
// (read_plot_run), the JSON result files of compare, table, plot and sweep --collect (nesting
// bounded, sim/cli/result_json.h) and table's run.yaml (aliases bounded). Each bad file is an
// InputError naming it and what is wrong, never a JSON library exception, a cast of an
// out-of-range number, a stack overflow or a hang.
#include "sim/cli/analysis/plot_data.h"
#include "sim/cli/analysis/run_table.h"
#include "sim/cli/compare.h"
#include "sim/cli/result_json.h"
#include "sim/engine/error.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// A run of one finished job on 4 GPUs, as dlsim writes it (only the columns plot reads).
void write_run(const ScratchDir& dir, const std::string& summary,
               const std::string& events = "time_s,job,action,devices\n0,a,start,0 1\n"
                                           "10,a,finish,0 1\n") {
  dir.write("summary.json", summary);
  dir.write("jobs.csv", "id,status,jct_s\na,finished,10\n");
  dir.write("timeseries.csv", "time_s,pending_jobs,running_jobs,allocated_gpus,"
                              "effective_gpu_util\n0,0,1,2,0.5\n");
  dir.write("events.csv", events);
}

std::string error_of(const std::string& dir) {
  try {
    (void)read_plot_run(dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST_CASE("dlsim plot reads a well-formed result directory", "[plot][errors]") {
  ScratchDir dir;
  write_run(dir, R"({"jobs": 1, "util_by_kind": {"gpu": {"devices": 4, "alloc": 0.5}}})");
  PlotRun run = read_plot_run(dir.path().string());
  CHECK(run.jobs == 1);
  CHECK(run.devices == 4);
  REQUIRE(run.segments.size() == 2); // job a on devices 0 and 1, 0 to 10 s
  CHECK(run.segments[1].device == 1);
  CHECK(run.segments[1].end_s == 10);
}

TEST_CASE("dlsim plot: a summary.json of wrong types or counts is an error naming the key",
          "[plot][errors]") {
  ScratchDir dir;
  const std::string file = dir.file("summary.json");
  // Each was an exception of the JSON library ("type_error.306: cannot use value() with
  // number"), or a count that wrapped round (-1 jobs) or overflowed a cast (1e300 devices).
  write_run(dir, R"({"jobs": 1, "util_by_kind": {"gpu": 4}})");
  CHECK(error_of(dir.path().string()) ==
        file + ": util_by_kind.gpu: expected an object with 'devices'");
  write_run(dir, R"({"jobs": "x", "util_by_kind": {}})");
  CHECK(error_of(dir.path().string()) == file + ": jobs: expected a count 0 to 4294967295, got "
                                                "'\"x\"'");
  write_run(dir, R"({"jobs": -1, "util_by_kind": {}})");
  CHECK(error_of(dir.path().string()) ==
        file + ": jobs: expected a count 0 to 4294967295, got '-1'");
  write_run(dir, R"({"jobs": 1, "util_by_kind": {"gpu": {"devices": 1e300}}})");
  CHECK(error_of(dir.path().string()) ==
        file + ": util_by_kind.gpu.devices: expected a count 0 to 4000000, got '1e+300'");
}

TEST_CASE("dlsim plot: events.csv device ids and times must be what dlsim writes",
          "[plot][errors]") {
  ScratchDir dir;
  const std::string ok = R"({"jobs": 1, "util_by_kind": {"gpu": {"devices": 4}}})";
  const std::string events = dir.file("events.csv");
  write_run(dir, ok, "time_s,job,action,devices\n0,a,start,1e300\n");
  CHECK(error_of(dir.path().string()) ==
        events + ":2: devices: '1e300' is not a device id (0 to 3999999)");
  write_run(dir, ok, "time_s,job,action,devices\n0,a,start,-1\n");
  CHECK(error_of(dir.path().string()) ==
        events + ":2: devices: '-1' is not a device id (0 to 3999999)");
  // A job id that is not UTF-8 went into gantt.dat and the SVG's labels (found by fuzz_plot).
  write_run(dir, ok, "time_s,job,action,devices\n0,a\xff,start,0\n");
  CHECK(error_of(dir.path().string()) ==
        events + ":2: job: not valid UTF-8 (byte 0xff at offset 1)");
  // A time "nan" read as a number made segments that sort nowhere.
  write_run(dir, ok, "time_s,job,action,devices\nnan,a,start,0\n");
  CHECK(error_of(dir.path().string()) == events + ": last row: 'nan' is not a finite number");
}

namespace {

// A summary.json whose key x holds `depth` nested containers of `open`/`close`.
std::string nested_summary(std::size_t depth, char open, char close) {
  return R"({"jobs": 1, "makespan_s": 2, "x": )" + std::string(depth, open) +
         std::string(depth, close) + "}";
}

} // namespace

TEST_CASE("result JSON: nesting up to the bound reads, deeper is an InputError", "[compare]") {
  // The top level is depth 0: x's outermost container is at depth 1, so 63 containers in x
  // reach depth 63, the deepest allowed (kMaxResultJsonDepth 64).
  static_assert(kMaxResultJsonDepth == 64);
  CHECK(parse_result_json(nested_summary(63, '[', ']'), "f").is_object());
  CHECK_THROWS_WITH(parse_result_json(nested_summary(64, '[', ']'), "f"),
                    "f: not valid JSON: nested more than 64 levels deep");
  CHECK_THROWS_WITH(parse_result_json("{\"a\": ", "f"),
                    Catch::StartsWith("f: not valid JSON: [json.exception.parse_error"));
}

TEST_CASE("dlsim compare: a deeply nested summary.json is an error, not a stack overflow",
          "[compare][errors]") {
  ScratchDir dir;
  for (char open : {'[', '{'}) {
    std::string text = open == '[' ? nested_summary(100000, '[', ']')
                                   : R"({"jobs": 1, "makespan_s": 2, "x": )" +
                                         [] {
                                           std::string s;
                                           for (int i = 0; i < 100000; ++i)
                                             s += "{\"a\":";
                                           return s + "1" + std::string(100000, '}');
                                         }() +
                                         "}";
    std::string file = dir.write("deep.json", text);
    CHECK_THROWS_WITH(read_result_set(file),
                      file + ": not valid JSON: nested more than 64 levels deep");
  }
  // dlsim's own nesting (util_by_kind.gpu.alloc) reads as before.
  std::string ok = dir.write(
      "ok.json", R"({"jobs": 1, "makespan_s": 2, "util_by_kind": {"gpu": {"alloc": 0.5}}})");
  ResultSet r = read_result_set(ok);
  REQUIRE(r.runs.at("").size() == 3);
  CHECK(r.runs.at("")[2].first == "util_by_kind.gpu.alloc");
}

TEST_CASE("dlsim table: a run.yaml of nested aliases is an error, not hours of flattening",
          "[table][errors]") {
  ScratchDir dir;
  std::filesystem::create_directory(dir.file("r1"));
  dir.write("r1/summary.json", R"({"jobs": 1, "makespan_s": 2, "jct_mean_s": 1})");
  // Seven levels of ten aliases: 10^7 leaves when expanded (it ran for minutes before).
  std::string yaml = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (char level = 'b'; level <= 'g'; ++level) {
    const std::string prev(1, static_cast<char>(level - 1));
    yaml += std::string(1, level) + ": &" + std::string(1, level) + " [";
    for (int i = 0; i < 10; ++i)
      yaml += (i > 0 ? ", *" : "*") + prev;
    yaml += "]\n";
  }
  dir.write("r1/run.yaml", yaml);
  CHECK_THROWS_WITH(build_run_table({dir.file("r1")}, {"jct_mean_s"}),
                    Catch::Contains("r1/run.yaml: aliases (*name) expand the document"));
}
