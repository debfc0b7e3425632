// Experiments: overrides, the resolved tree, and errors naming keys.
#include "sim/cli/experiment.h"
#include "sim/config/yaml_reader.h"
#include "sim/engine/error.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>

using namespace dlsim;
using namespace dlsim::test;

namespace {

std::string experiment_error(const std::string& yaml,
                             std::vector<std::pair<std::string, std::string>> overrides = {}) {
  ScratchDir dir;
  try {
    load_experiment(ExperimentInputs{dir.write("exp.yaml", yaml), std::move(overrides)});
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

constexpr const char* kBase = R"(
cluster: configs/clusters/tiny.yaml
trace: {file: traces/sample.csv}
policy: {name: fifo}
)";

} // namespace

TEST_CASE("an experiment resolves every default and applies --set", "[experiment]") {
  ScratchDir dir;
  std::string file = dir.write("exp.yaml", kBase);
  Experiment e = load_experiment(ExperimentInputs{file,
                                                  {{"cluster.nodes.0.count", "3"},
                                                   {"costs.suspend_s", "0"},
                                                   {"policy.placement", "spread"},
                                                   {"seed", "9"}}});
  CHECK(e.cluster.nodes.size() == 3); // the cluster file was inlined, then overridden
  CHECK(e.runtime.costs.suspend_s == 0);
  CHECK(e.runtime.costs.resume_s == 5); // default
  CHECK(e.placement == "spread");
  CHECK(e.seed == 9);
  CHECK(e.name == "exp");
  // The resolved tree has everything, defaults included.
  CHECK(e.resolved["costs"]["migrate_s"].as<double>() == 10);
  CHECK(e.resolved["runtime"]["interference"]["slope"].as<double>() == 2.5);
  CHECK(e.resolved["cluster"]["nodes"][0]["count"].as<int>() == 3);
  CHECK(e.resolved["cluster"]["nodes"][0]["pcie"]["gen"].as<int>() == 3);
}

TEST_CASE("bad experiments name the key", "[experiment][errors]") {
  CHECK_THAT(experiment_error(std::string(kBase) + "colour: red\n"),
             Catch::Contains("colour: unknown key"));
  CHECK_THAT(experiment_error(std::string(kBase) + "costs: {suspend_s: -1}\n"),
             Catch::Contains("costs.suspend_s: must not be negative, got -1"));
  CHECK_THAT(experiment_error(std::string(kBase) + "costs: {suspend: 1}\n"),
             Catch::Contains("costs.suspend: unknown key"));
  CHECK_THAT(experiment_error(kBase, {{"policy.name", "lottery"}}),
             Catch::Contains("unknown policy 'lottery' (known: fifo"));
  CHECK_THAT(experiment_error(kBase, {{"policy.placement", "random"}}),
             Catch::Contains("unknown placement 'random'"));
  CHECK_THAT(experiment_error(kBase, {{"policy.params.quantum", "5"}}),
             Catch::Contains("policy 'fifo' has no such parameter"));
  CHECK_THAT(experiment_error(kBase, {{"cluster.nodes.5.count", "1"}}),
             Catch::Contains("index 5 is out of range"));
  CHECK_THAT(experiment_error(kBase, {{"seed", "minus"}}),
             Catch::Contains("seed: expected an integer, got 'minus'"));
  CHECK_THAT(experiment_error("cluster: configs/clusters/tiny.yaml\n"),
             Catch::Contains("trace: missing (trace.file, a trace file; or trace.generate)"));
  CHECK_THAT(experiment_error("cluster: nowhere.yaml\ntrace: {file: x.csv}\n"),
             Catch::Contains("exp.yaml: cluster: no file 'nowhere.yaml'"));
  CHECK_THAT(experiment_error("cluster: [unclosed\n"), Catch::Contains("YAML syntax error"));
}

TEST_CASE("a bad --set value is named by its --set, not by a line of the experiment file",
          "[experiment][errors]") {
  // The value's own YAML marks say line 1 (of the value's text): the message must not pass that
  // off as line 1 of exp.yaml, whose costs are not even written there.
  std::string scalar = experiment_error(kBase, {{"costs.suspend_s", "-1"}});
  CHECK(scalar.rfind("--set costs.suspend_s: must not be negative, got -1") == 0);
  CHECK_THAT(scalar, !Catch::Contains("exp.yaml"));
  // Inside a mapping given whole: the --set, then the key path read, for a bad value and for an
  // unknown key (reported at the key's node).
  std::string inner = experiment_error(kBase, {{"costs", "{suspend_s: -2}"}});
  CHECK(inner.rfind("--set costs: costs.suspend_s: must not be negative, got -2") == 0);
  std::string unknown = experiment_error(kBase, {{"costs", "{suspend: 1}"}});
  CHECK(unknown.rfind("--set costs: costs.suspend: unknown key") == 0);
  // A bad value written in the file itself keeps its file and line (line 5 of kBase + costs).
  CHECK_THAT(experiment_error(std::string(kBase) + "costs: {suspend_s: -1}\n"),
             Catch::Contains("exp.yaml:5: costs.suspend_s: must not be negative"));
}

TEST_CASE("set overrides parse values as YAML and creates keys", "[experiment]") {
  YAML::Node root = YAML::Load("a: {b: 1}\nlist: [1, 2]\n");
  yaml_set_path(root, "a.c.d", "[1, 2]");
  yaml_set_path(root, "list.1", "7");
  CHECK(root["a"]["c"]["d"].size() == 2);
  CHECK(root["list"][1].as<int>() == 7);
  CHECK(root["a"]["b"].as<int>() == 1);
  CHECK_THROWS_AS(yaml_set_path(root, "a.b.x", "1"), InputError);
}

TEST_CASE("the short forms trace: FILE and policy: NAME take --trace, --policy and other keys",
          "[experiment]") {
  ScratchDir dir;
  std::string file = dir.write(
      "exp.yaml", "cluster: configs/clusters/tiny.yaml\ntrace: traces/sample.csv\npolicy: sjf\n");
  Experiment plain = load_experiment(ExperimentInputs{file, {}});
  CHECK(plain.trace_file.ends_with("traces/sample.csv"));
  CHECK(plain.policy == "sjf");
  // What --trace, --format and --policy turn into.
  Experiment e = load_experiment(ExperimentInputs{file,
                                                  {{"trace.file", "traces/tiresias_60_job.csv"},
                                                   {"trace.format", "tiresias"},
                                                   {"policy.name", "srtf"},
                                                   {"policy.placement", "spread"}}});
  CHECK(e.trace_file.ends_with("traces/tiresias_60_job.csv"));
  CHECK(e.trace_format == "tiresias");
  CHECK(e.policy == "srtf");
  CHECK(e.placement == "spread");
  // An override may itself use the short form.
  Experiment again = load_experiment(ExperimentInputs{file, {{"policy", "las"}}});
  CHECK(again.policy == "las");
}

TEST_CASE("costs.switch_s and runtime.max_timeslice_jobs are experiment keys", "[experiment]") {
  ScratchDir dir;
  std::string file = dir.write("exp.yaml", kBase);
  Experiment d = load_experiment(ExperimentInputs{file, {}});
  CHECK(d.runtime.costs.switch_s == 1); // Gandiva's upper figure (docs/runtime.md)
  CHECK(d.runtime.max_timeslice_jobs == 4);
  Experiment e = load_experiment(
      ExperimentInputs{file, {{"costs.switch_s", "0.1"}, {"runtime.max_timeslice_jobs", "6"}}});
  CHECK(e.runtime.costs.switch_s == 0.1);
  CHECK(e.runtime.max_timeslice_jobs == 6);
  CHECK(e.resolved["costs"]["switch_s"].as<double>() == 0.1);
  CHECK(e.resolved["runtime"]["max_timeslice_jobs"].as<unsigned>() == 6);
  CHECK_THAT(experiment_error(kBase, {{"runtime.max_timeslice_jobs", "9"}}),
             Catch::Contains("runtime.max_timeslice_jobs: must be 1 to 8"));
  CHECK_THAT(experiment_error(kBase, {{"costs.switch_s", "-1"}}),
             Catch::Contains("costs.switch_s: must not be negative"));
}

TEST_CASE("a trace that cannot be read twice (a pipe, a device) is an error naming it",
          "[experiment][errors]") {
  // The trace is opened for the format guess, for its rows and for provenance.json's checksum;
  // a pipe would hand its bytes to the first of these only.
  ScratchDir dir;
  const std::string fifo = dir.file("trace.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string error = experiment_error(kBase, {{"trace.file", fifo}});
  CHECK(error.starts_with(fifo + ": the trace is a pipe: "));
  CHECK(error.find("write it to a file first") != std::string::npos);
  error = experiment_error(kBase, {{"trace.file", "/dev/null"}});
  CHECK(error.starts_with("/dev/null: the trace is a character device: "));
  // A regular file and a directory (PAI 2020's tables) pass this check.
  CHECK(experiment_error(kBase) == "no error");
  CHECK(experiment_error(kBase, {{"trace.file", "traces/pai2020-sample"},
                                 {"trace.format", "pai2020"}}) == "no error");
}
