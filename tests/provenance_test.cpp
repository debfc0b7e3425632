// provenance.json (version, commit, input checksums, times) beside the deterministic result
// files, and the default output directory's refusal to replace a run of other inputs.
#include "tests/support/harness.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>

using namespace dlsim::test;

namespace {

// dlsim run with `dir` as the current directory, so that the default results/ goes there.
Outcome run_in(const ScratchDir& dir, const std::string& args) {
  std::string cmd = "cd '" + dir.path().string() + "' && '" DLSIM_BINARY "' " + args + " > '" +
                    dir.file("out.txt") + "' 2> '" + dir.file("err.txt") + "'";
  int status = std::system(cmd.c_str());
  return Outcome{WEXITSTATUS(status), read_file(dir.file("out.txt")),
                 read_file(dir.file("err.txt"))};
}

std::string crc32_hex(const std::string& bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size()));
  char text[16];
  std::snprintf(text, sizeof text, "%08lx", static_cast<unsigned long>(crc));
  return text;
}

} // namespace

TEST_CASE("provenance.json names the commit and the inputs' checksums, summary.json does not",
          "[cli][provenance]") {
  ScratchDir dir;
  REQUIRE(run_in(dir, "run -q --set report.sample_s=2m -o res").code == 0);
  auto p = nlohmann::json::parse(read_file(dir.file("res/provenance.json")));
  Outcome version = run_in(dir, "version");
  REQUIRE(version.code == 0);
  // "dlsim 0.1.0 (commit X)": the same X in the file.
  std::string commit = p["commit"];
  CHECK(version.out ==
        "dlsim " + p["dlsim_version"].get<std::string>() + " (commit " + commit + ")\n");
  CHECK(commit != "");
  // The trace and the model zoo: CRC-32 and size of the files' bytes, computed here with zlib.
  std::string trace = read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/traces/sample.csv");
  CHECK(p["inputs"]["trace"]["crc32"] == crc32_hex(trace));
  CHECK(p["inputs"]["trace"]["bytes"] == trace.size());
  std::string zoo = read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/configs/models/zoo.yaml");
  CHECK(p["inputs"]["models"]["crc32"] == crc32_hex(zoo));
  std::string cluster = read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/configs/clusters/small.yaml");
  CHECK(p["inputs"]["cluster"]["crc32"] == crc32_hex(cluster));
  CHECK(p["run_yaml_crc32"] == crc32_hex(read_file(dir.file("res/run.yaml"))));
  CHECK(p["overrides"] == nlohmann::json::array({"report.sample_s=2m"}));
  CHECK(p["cpu_s"].get<double>() > 0);
  CHECK(p["wall_s"].get<double>() >= p["sim_s"].get<double>());
  // Nothing of the clock, the commit or the machine in the deterministic files.
  std::string summary = read_file(dir.file("res/summary.json"));
  CHECK_THAT(summary, !Catch::Contains("commit"));
  CHECK_THAT(summary, !Catch::Contains("wall"));
  REQUIRE(run_in(dir, "run -q --set report.sample_s=2m -o res2").code == 0);
  CHECK(read_file(dir.file("res2/summary.json")) == summary);
  CHECK(read_file(dir.file("res2/jobs.csv")) == read_file(dir.file("res/jobs.csv")));
}

TEST_CASE("the default directory is not replaced by a run of other inputs without --force",
          "[cli][provenance]") {
  ScratchDir dir;
  REQUIRE(run_in(dir, "run -q").code == 0);
  std::string summary = read_file(dir.file("results/default-fifo-1/summary.json"));
  // The same inputs again: the same run, replaced.
  REQUIRE(run_in(dir, "run -q").code == 0);
  CHECK(read_file(dir.file("results/default-fifo-1/summary.json")) == summary);
  // Other inputs (another sampling period) under the same experiment, policy and seed: refused,
  // the first run intact.
  Outcome other = run_in(dir, "run -q --set report.sample_s=120");
  CHECK(other.code == 1);
  CHECK_THAT(other.err, Catch::Contains("results/default-fifo-1/ holds the results of a run "
                                        "with other inputs (its run.yaml has report.sample_s: "
                                        "60, this run 120); give --out DIR"));
  CHECK_THAT(other.err, Catch::Contains("--force"));
  CHECK_THAT(read_file(dir.file("results/default-fifo-1/run.yaml")),
             Catch::Contains("sample_s: 60"));
  // --out is the user's choice: no check. --force replaces the default directory.
  CHECK(run_in(dir, "run -q --set report.sample_s=120 -o results/default-fifo-1").code == 0);
  REQUIRE(run_in(dir, "run -q").code == 1);
  REQUIRE(run_in(dir, "run -q --force").code == 0);
  CHECK_THAT(read_file(dir.file("results/default-fifo-1/run.yaml")),
             Catch::Contains("sample_s: 60"));
}

TEST_CASE("a measurement window measures the jobs submitted in it, by hand", "[cli][window]") {
  ScratchDir dir;
  // The FIFO case of tests/outputs_test.cpp: one node of 4 V100s; a (3 GPUs, submitted 0, runs
  // 0-100), b (2 GPUs, submitted 10, runs 100-150 s), c (1 GPU, submitted 20, runs 100-130 s).
  dir.write("four.yaml", "nodes:\n  - {count: 1, devices: {V100: 4}}\n");
  dir.write("t.csv", "id,submit_s,workers,duration_s\na,0,3,100\nb,10,2,50\nc,20,1,30\n");
  std::string common =
      "run -q --policy fifo --cluster " + dir.file("four.yaml") + " --trace " + dir.file("t.csv");
  REQUIRE(run_in(dir, common + " -o plain").code == 0);
  REQUIRE(run_in(dir, common + " --set report.measure_from_s=5 --set report.measure_to_s=20 -o w")
              .code == 0);
  auto plain = nlohmann::ordered_json::parse(read_file(dir.file("plain/summary.json")));
  auto with = nlohmann::ordered_json::parse(read_file(dir.file("w/summary.json")));
  // The run is the same; only the window is added, at the end.
  CHECK_FALSE(plain.contains("window"));
  auto window = with["window"];
  with.erase("window");
  CHECK(with == plain);
  // [5, 20] holds b and c. JCT b 150 - 10 = 140, c 130 - 20 = 110: mean 125, p95 110 + 30 x
  // 0.95 = 138.5, p99 110 + 30 x 0.99 = 139.7. Queueing b 100 - 10 = 90, c 80: mean 85, p95
  // 80 + 10 x 0.95 = 89.5. Slowdown b 140 / 50 = 2.8, c 110 / 30 = 3.666...: mean 3.2333...
  CHECK(window["from_s"] == 5);
  CHECK(window["to_s"] == 20);
  CHECK(window["jobs"] == 2);
  CHECK(window["finished"] == 2);
  CHECK(window["unfinished"] == 0);
  CHECK(window["jct_mean_s"] == 125);
  CHECK(window["jct_median_s"] == 125);
  CHECK(window["jct_p95_s"].get<double>() == Approx(138.5).margin(1e-6));
  CHECK(window["jct_p99_s"].get<double>() == Approx(139.7).margin(1e-6));
  CHECK(window["queue_mean_s"] == 85);
  CHECK(window["queue_p95_s"].get<double>() == Approx(89.5).margin(1e-6));
  CHECK(window["slowdown_mean"].get<double>() == Approx((2.8 + 110.0 / 30) / 2));
  CHECK(window["slowdown_max"].get<double>() == Approx(110.0 / 30));
  // Only the start given: up to the last submission (20 s), so the same jobs.
  REQUIRE(run_in(dir, common + " --set report.measure_from_s=5 -o from").code == 0);
  auto from = nlohmann::json::parse(read_file(dir.file("from/summary.json")));
  CHECK(from["window"]["to_s"] == 20);
  CHECK(from["window"]["jobs"] == 2);
  // An end before the start is an error naming the key.
  Outcome bad =
      run_in(dir, common + " --set report.measure_from_s=50 --set report.measure_to_s=20 -o bad");
  CHECK(bad.code == 1);
  CHECK_THAT(bad.err, Catch::Contains("report.measure_to_s: must not be below "
                                      "report.measure_from_s (50 s), got 20 s"));
}

TEST_CASE("trace.generate in an experiment runs the trace gen-trace would write",
          "[cli][generate]") {
  ScratchDir dir;
  // The same generator, seed and rate: through a file written by gen-trace, and generated by
  // the run itself (its seed from the run's --seed when trace.generate.seed is not given).
  REQUIRE(run_in(dir, "gen-trace --jobs 60 --seed 3 --arrival-rate 20 --models -o t.csv").code ==
          0);
  REQUIRE(run_in(dir, "run -q --trace t.csv --seed 3 -o from-file").code == 0);
  dir.write("gen.yaml", "cluster: configs/clusters/small.yaml\n"
                        "trace: {generate: {jobs: 60, arrival_rate: 20, models: true}}\n"
                        "seed: 3\n");
  REQUIRE(run_in(dir, "run -q -e gen.yaml -o generated").code == 0);
  CHECK(read_file(dir.file("generated/jobs.csv")) == read_file(dir.file("from-file/jobs.csv")));
  std::string summary = read_file(dir.file("generated/summary.json"));
  CHECK(summary == read_file(dir.file("from-file/summary.json")));
  CHECK_THAT(summary, Catch::Contains("\"jobs\": 60,"));
  // run.yaml records the generator, not a file, and repeats the run.
  std::string run_yaml = read_file(dir.file("generated/run.yaml"));
  CHECK_THAT(run_yaml, Catch::Contains("jobs: 60"));
  CHECK_THAT(run_yaml, !Catch::Contains("file:"));
  REQUIRE(run_in(dir, "run -q -e generated/run.yaml -o again").code == 0);
  CHECK(read_file(dir.file("again/jobs.csv")) == read_file(dir.file("generated/jobs.csv")));
  // Another seed is another trace; an explicit generator seed wins over the run's.
  REQUIRE(run_in(dir, "run -q -e gen.yaml --seed 4 -o seed4").code == 0);
  CHECK(read_file(dir.file("seed4/jobs.csv")) != read_file(dir.file("generated/jobs.csv")));
  REQUIRE(run_in(dir, "run -q -e gen.yaml --seed 4 --set trace.generate.seed=3 -o pinned").code ==
          0);
  CHECK(read_file(dir.file("pinned/jobs.csv")) == read_file(dir.file("generated/jobs.csv")));
  // A file and a generator at once, or a bad rate: errors naming the key.
  Outcome both = run_in(dir, "run -q -e gen.yaml --trace t.csv -o both");
  CHECK(both.code == 1);
  CHECK_THAT(both.err, Catch::Contains("give either trace.file or trace.generate, not both"));
  Outcome rate = run_in(dir, "run -q -e gen.yaml --set trace.generate.arrival_rate=0 -o rate");
  CHECK(rate.code == 1);
  CHECK_THAT(rate.err, Catch::Contains("trace.generate.arrival_rate"));
  Outcome preset = run_in(dir, "run -q -e gen.yaml --set trace.generate.like=nowhere -o p");
  CHECK(preset.code == 1);
  CHECK_THAT(preset.err, Catch::Contains("nowhere"));
}
