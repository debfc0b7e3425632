// Strict YAML: a repeated key and a second document are errors naming the
// file and line, in experiment and cluster files and in --set values alike.
#include "sim/cli/experiment.h"
#include "sim/config/yaml_reader.h"
#include "sim/engine/error.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace {

std::string load_error(const std::string& file,
                       std::vector<std::pair<std::string, std::string>> overrides = {}) {
  try {
    load_experiment(ExperimentInputs{file, std::move(overrides)});
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("a repeated YAML key is an error naming both lines", "[experiment][errors]") {
  ScratchDir dir;
  // Line 1 is empty (the raw string starts with a newline): seed is given on lines 5 and 6.
  // Before, yaml-cpp's lookup found the first (seed 1) and the second was silently ignored.
  std::string file = dir.write("exp.yaml", R"(
cluster: configs/clusters/tiny.yaml
trace: {file: traces/sample.csv}
policy: {name: fifo}
seed: 1
seed: 2
)");
  CHECK(load_error(file) == file + ":6: seed: duplicate key (first given at line 5)");
  // Nested, in a flow mapping: costs.start_s on line 3.
  std::string nested = dir.write("nested.yaml", "cluster: configs/clusters/tiny.yaml\n"
                                                "trace: {file: traces/sample.csv}\n"
                                                "costs: {start_s: 1, start_s: 2}\n");
  CHECK(load_error(nested) == nested + ":3: costs.start_s: duplicate key (first given at line 3)");
  // In a cluster file read through the experiment.
  std::string cluster = dir.write("c.yaml", "nodes:\n  - {count: 1, devices: {V100: 1}}\n"
                                            "nodes:\n  - {count: 2, devices: {V100: 1}}\n");
  std::string uses =
      dir.write("uses.yaml", "cluster: " + cluster + "\n" + "trace: {file: traces/sample.csv}\n");
  CHECK(load_error(uses) == cluster + ":3: nodes: duplicate key (first given at line 1)");
  // In a --set value.
  std::string ok = dir.write("ok.yaml", "cluster: configs/clusters/tiny.yaml\n"
                                        "trace: {file: traces/sample.csv}\n");
  CHECK_THAT(load_error(ok, {{"costs", "{start_s: 1, start_s: 2}"}}),
             Catch::Equals("--set:1: costs.start_s: duplicate key (first given at line 1)"));
}

TEST_CASE("a second YAML document is an error, not ignored", "[experiment][errors]") {
  ScratchDir dir;
  // Before, the second document (seed: 9) was dropped without a word.
  std::string file = dir.write("two.yaml", "cluster: configs/clusters/tiny.yaml\n"
                                           "trace: {file: traces/sample.csv}\n"
                                           "---\n"
                                           "seed: 9\n");
  CHECK_THAT(load_error(file),
             Catch::StartsWith(file + ":") && Catch::Contains("a second YAML document"));
  // A lone trailing '---' starts an (empty) second document too.
  std::string trailing = dir.write("trailing.yaml", "cluster: configs/clusters/tiny.yaml\n"
                                                    "trace: {file: traces/sample.csv}\n---\n");
  CHECK_THAT(load_error(trailing), Catch::Contains("a second YAML document"));
  // A leading '---' before the only document is fine.
  std::string leading = dir.write("leading.yaml", "---\ncluster: configs/clusters/tiny.yaml\n"
                                                  "trace: {file: traces/sample.csv}\n");
  CHECK(load_error(leading) == "no error");
  CHECK_THAT(load_error(leading, {{"seed", "1\n---\n2"}}),
             Catch::Contains("--set seed: the value holds more than one YAML document"));
}

TEST_CASE("a stray comma after the document is an error, not a hang", "[experiment][errors]") {
  // yaml-cpp 0.7's LoadAll never returns on these (a null document per turn until memory runs
  // out: jbeder/yaml-cpp PR #1319); found by fuzz_experiment. The first document alone is valid.
  ScratchDir dir;
  std::string file = dir.write("comma.yaml", "cluster: configs/clusters/tiny.yaml\n"
                                             "trace: {file: traces/sample.csv}\n"
                                             "---\n"
                                             ",\n");
  // Line 3: the second document starts at its '---'.
  CHECK_THAT(load_error(file), Catch::StartsWith(file + ":3: a second YAML document") &&
                                   Catch::Contains("or text after the end of the first"));
  std::string ok = dir.write("ok.yaml", "cluster: configs/clusters/tiny.yaml\n"
                                        "trace: {file: traces/sample.csv}\n");
  CHECK_THAT(load_error(ok, {{"seed", "1\n---\n,"}}),
             Catch::Contains("--set seed: the value holds more than one YAML document"));
}
