// Models kept out of seeded draws (`drawn: false`, docs/models.md#models-kept-out-of-draws): a
// model added to the zoo for one trace's jobs must leave every seeded draw over the zoo as it was.
#include "sim/engine/error.h"
#include "tests/support/harness.h"
#include "workloads/build_workload.h"
#include "workloads/model_zoo.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

std::string model_yaml(const std::string& name, double v100_s, bool drawn) {
  return "  " + name + ":\n    family: cnn\n    params_m: 1\n    gflops_per_sample: 1\n" +
         "    batch_size: 1\n    gpu_util: 0.5\n    gpu_mem_gb: 1\n    comm_overlap: 0.5\n" +
         (drawn ? "" : "    drawn: false\n") +
         "    iteration_time_s: {V100: " + std::to_string(v100_s) + "}\n";
}

// The model names that trace.assign_models gives 40 model-less jobs under a zoo.
std::vector<std::string> assigned_models(const ModelZoo& zoo) {
  std::string csv = "id,submit_s,workers,duration_s\n";
  for (int j = 0; j < 40; ++j)
    csv += "j" + std::to_string(j) + "," + std::to_string(j) + ",1,100\n";
  const Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  WorkloadOptions o;
  o.assign_models = true;
  o.seed = 7;
  const Workload w = build_workload(trace_from_csv(csv), zoo, c, o);
  std::vector<std::string> names;
  for (const auto& job : w.jobs)
    names.push_back(w.models[job.request.model]);
  return names;
}

} // namespace

TEST_CASE("a drawn: false model moves no seeded model draw", "[zoo]") {
  ScratchDir dir;
  const std::string head = "reference_device: V100\nmodels:\n";
  const ModelZoo two = load_model_zoo(
      dir.write("two.yaml", head + model_yaml("a", 1, true) + model_yaml("c", 3, true)));
  // The same zoo with `b` between them: without the flag b would be index 1 and every draw of
  // index 1 or 2 would name another model.
  const ModelZoo three = load_model_zoo(dir.write("three.yaml", head + model_yaml("a", 1, true) +
                                                                    model_yaml("b", 2, false) +
                                                                    model_yaml("c", 3, true)));
  CHECK(drawn_models(two) == std::vector<std::size_t>{0, 1});
  CHECK(drawn_models(three) == std::vector<std::size_t>{0, 2});

  const std::vector<std::string> before = assigned_models(two);
  const std::vector<std::string> after = assigned_models(three);
  CHECK(after == before);
  // Both drawn models occur (40 fair draws all alike has probability 2^-39), and never b.
  CHECK(std::count(after.begin(), after.end(), "a") > 0);
  CHECK(std::count(after.begin(), after.end(), "c") > 0);
  CHECK(std::count(after.begin(), after.end(), "b") == 0);

  SECTION("a job that names the model still gets it") {
    const Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
    const Workload w = build_workload(
        trace_from_csv("id,submit_s,workers,duration_s,model\nx,0,1,100,b\n"), three, c, {});
    CHECK(w.models[w.jobs[0].request.model] == "b");
  }
}

TEST_CASE("a zoo with no model to draw is an error naming its models key", "[zoo]") {
  ScratchDir dir;
  const std::string file =
      dir.write("none.yaml", "reference_device: V100\nmodels:\n" + model_yaml("b", 2, false));
  CHECK_THROWS_WITH(load_model_zoo(file), Catch::Contains("none.yaml") &&
                                              Catch::Contains("models") &&
                                              Catch::Contains("drawn: false"));
}
