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

TEST_CASE("provenance.json names the commit and the inputs' checksums; summary.json does not",
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
