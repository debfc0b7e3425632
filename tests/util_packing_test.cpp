// Packing by GPU utilization (docs/utilization.md): the Horus cost rule, the reactive
// profiling window, proactive placement by a predictor, and the predictor file.
#include "support/harness.h"
#include "support/invariants.h"

#include "policies/horus_cost.h"
#include "policies/util_packing.h"
#include "sim/engine/error.h"
#include "workloads/model_zoo.h"
#include "workloads/utilization/evaluate.h"
#include "workloads/utilization/features.h"
#include "workloads/utilization/predictor.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace {

// A ridge predictor that says `pct` for every job on every device: all weights 0, intercept
// log(1 + pct) (the model is fitted to log(1 + u)).
std::string constant_predictor(double pct) {
  std::string zeros = " 0 0 0 0 0 0 0 0";
  return fmt::format("dlsim-util-predictor 1\nmodel ridge\nfeatures {}\nmean{}\nscale{}\n"
                     "intercept {}\nweights{}\n",
                     fmt::join(kUtilFeatureNames, " "), zeros, " 1 1 1 1 1 1 1 1", std::log1p(pct),
                     zeros);
}

SimState run_proactive(const Cluster& c, const Workload& w, const std::string& predictor,
                       const RuntimeConfig& config) {
  PolicyEntry entry = util_proactive_policy();
  PolicySetup setup{Placement::kConsolidate, resolve_params(entry, YAML::Node())};
  setup.data_files.push_back({"predictor", "test-predictor.txt", predictor});
  auto policy = entry.make(setup);
  Simulation sim(c, w, config, *policy, PolicyInfo{entry.name, false});
  InvariantChecker checker;
  sim.add_observer(&checker);
  sim.run();
  checker.check_final(sim.state());
  return sim.state();
}

RuntimeConfig packing_config() {
  RuntimeConfig config;
  config.max_jobs_per_device = 3; // Horus' 3 tasks per GPU
  config.costs.migrate_s = 0;
  return config;
}

} // namespace

TEST_CASE("Horus cost rule: three GPUs, one job", "[util][horus]") {
  // Three 8 GB GPUs, each holding one job; the new job needs 2 GB and is expected at 60%.
  //  GPU 0: 4 GB held, 50% busy. mem share (4 + 2) / 8 = 0.75 -> 1.3 x 0.75 = 0.975;
  //         50 + 60 = 110 > 100: u = |110 - 100| x 1.6 = 16 -> 0.16; tasks 1.
  //         cost = 0.975 + 0.16 + 1 = 2.135.
  //  GPU 1: 2 GB held, 30% busy. (2 + 2) / 8 = 0.5 -> 0.65; 30 + 60 = 90: u = 10 -> 0.10;
  //         cost = 0.65 + 0.10 + 1 = 1.75.
  //  GPU 2: 6 GB held: 8 - (6 + 2) = 0 GB would stay free, not more than 0.5: does not fit.
  // GPU 1 wins: it leaves the GPU closest to 100% busy without going over.
  HorusParams p;
  std::vector<HorusDevice> gpus = {{8, 4, 50, 1}, {8, 2, 30, 1}, {8, 6, 20, 1}};
  CHECK(*horus_cost(p, gpus[0], 2, 60) == Approx(2.135));
  CHECK(*horus_cost(p, gpus[1], 2, 60) == Approx(1.75));
  CHECK_FALSE(horus_cost(p, gpus[2], 2, 60));
  CHECK(horus_choose(p, gpus, 2, 60) == std::optional<std::size_t>(1));

  // An empty GPU costs only its memory share and the distance to 100%: 1.3 x 2/8 + 40/100 =
  // 0.725, below any GPU that holds a job (tasks >= 1): Horus fills empty GPUs first.
  gpus.push_back({8, 0, 0, 0});
  CHECK(*horus_cost(p, gpus[3], 2, 60) == Approx(0.725));
  CHECK(horus_choose(p, gpus, 2, 60) == std::optional<std::size_t>(3));
  // A GPU with 3 jobs takes no fourth, whatever its memory.
  CHECK_FALSE(horus_cost(p, HorusDevice{80, 0, 0, 3}, 1, 10));
}

TEST_CASE("util-reactive packs a job only after it has run alone for profile_s",
          "[util][reactive]") {
  // Two V100s (16 GB). resnet18 (zoo: 1.5 GB, 70% busy alone). a and b arrive at 0 and run
  // alone to be profiled; c arrives at 10 s and waits: no GPU is free and its utilization is
  // unknown. At profile_s both a and b are measured (70%); c is waiting, so a moves by the cost
  // rule onto b's GPU (the only GPU holding measured jobs: 1.3 x 3/16 + 40 x 1.6/100 + 1 =
  // 1.884), which frees GPU 0 for c at exactly profile_s.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,model\n"
                                    "a,0,1,1000,resnet18\n"
                                    "b,0,1,1000,resnet18\n"
                                    "c,10,1,100,resnet18\n");
  for (double profile_s : {60.0, 30.0}) {
    RuntimeConfig config = packing_config();
    config.profile_s = profile_s;
    RunOutput out = run_policy("util-reactive", c, w, config);
    const auto& jobs = out.state.jobs;
    CHECK(jobs[job_named(w, "c")].first_start == from_seconds(profile_s));
    CHECK(jobs[job_named(w, "a")].migrations == 1);
    CHECK(jobs[job_named(w, "b")].migrations == 0);
  }
}

TEST_CASE("util-reactive moves no job onto a GPU whose share is guaranteed to others",
          "[util][reactive][share]") {
  // Two V100s. a (a whole GPU) and b (guaranteed 0.6 of a GPU, gpu_share_min) arrive at 0 and
  // are profiled alone, a on GPU 0 and b on GPU 1; c arrives at 10 s and waits. At profile_s
  // both are measured while c waits. The cost rule would move a onto b's GPU, but 0.6 + 1 of
  // it guaranteed is more than the GPU (docs/runtime.md#fractional-shares), and b may not join a
  // whole-GPU job: nobody moves (before the fix the runtime refused the migrate and the run
  // stopped with an error). c starts when b ends, on b's GPU. b runs alone under the share
  // controller: its cap u / e covers it, so only the hook's 1% costs (runtime.share defaults):
  // 500 / 0.99 = 505.0505 s.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,model,gpu_share_min\n"
                                    "a,0,1,1000,resnet18,1\n"
                                    "b,0,1,500,resnet18,0.6\n"
                                    "c,10,1,100,resnet18,1\n");
  RuntimeConfig config = packing_config();
  config.profile_s = 60;
  RunOutput out = run_policy("util-reactive", c, w, config);
  const auto& jobs = out.state.jobs;
  CHECK(jobs[job_named(w, "a")].migrations == 0);
  CHECK(jobs[job_named(w, "b")].migrations == 0);
  CHECK(to_seconds(jobs[job_named(w, "c")].first_start) == Approx(500 / 0.99));
  CHECK(jobs[job_named(w, "b")].end == jobs[job_named(w, "c")].first_start);
}

TEST_CASE("util-slot never shares a GPU", "[util][slot]") {
  // Same jobs: c waits for a whole GPU, until a or b ends at 1000 s.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,model\n"
                                    "a,0,1,1000,resnet18\n"
                                    "b,0,1,1000,resnet18\n"
                                    "c,10,1,100,resnet18\n");
  RunOutput out = run_policy("util-slot", c, w, packing_config());
  CHECK(out.state.jobs[job_named(w, "c")].first_start == from_seconds(1000));
  CHECK(out.state.jobs[job_named(w, "c")].end == from_seconds(1100));
}

TEST_CASE("util-proactive packs at submission by the predicted utilization", "[util][proactive]") {
  // Two V100s (16 GB); three resnet18 jobs (1.5 GB) at 0; the predictor says 40% for each.
  //  a: both GPUs empty, 1.3 x 1.5/16 + |40 - 100|/100 = 0.721875 each: the lower id, GPU 0.
  //  b: GPU 0 = 1.3 x 3/16 + |80 - 100|/100 + 1 = 1.44375; GPU 1 = 0.721875: GPU 1.
  //  c: 1.44375 on both: GPU 0, with a.
  // Their true utilization is 70% each, so a and c together run at U = 1.4 and are slowed by
  // 1 + 2.5 x (1.4 - 0.8) = 2.5: both end at 100 x 2.5 = 250 s; b alone ends at 100 s.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,model\n"
                                    "a,0,1,100,resnet18\n"
                                    "b,0,1,100,resnet18\n"
                                    "c,0,1,100,resnet18\n");
  SimState s = run_proactive(c, w, constant_predictor(40), packing_config());
  CHECK(s.jobs[job_named(w, "a")].end == from_seconds(250));
  CHECK(s.jobs[job_named(w, "b")].end == from_seconds(100));
  CHECK(s.jobs[job_named(w, "c")].end == from_seconds(250));
}

TEST_CASE("util-proactive: a job whose model has no graph features is an error naming it",
          "[util][proactive]") {
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s\n"
                                    "plain,0,1,100\n");
  CHECK_THROWS_WITH(run_proactive(c, w, constant_predictor(40), packing_config()),
                    Catch::Contains("job 'plain' (no model) has no graph features"));
}

TEST_CASE("a predictor file is written and read back byte for byte, a corrupt one names its line",
          "[util][predictor]") {
  // Two rows differing only in the batch feature: ridge fits them; the text round-trips.
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(3, static_cast<Eigen::Index>(kUtilFeatureNames.size()));
  x(0, 1) = 1;
  x(1, 1) = 2;
  x(2, 1) = 3;
  Eigen::VectorXd y(3);
  y << 20, 40, 60;
  for (UtilModelKind kind : {UtilModelKind::kRidge, UtilModelKind::kStumps}) {
    UtilPredictor p = train_util_predictor(kind, x, y, UtilTrainOptions{});
    std::string text = util_predictor_text(p);
    UtilPredictor back = parse_util_predictor(text, "p.txt");
    CHECK(util_predictor_text(back) == text);
    Eigen::VectorXd row = x.row(1).transpose();
    CHECK(predict_util_pct(back, row) == predict_util_pct(p, row));
    // The same training again gives the same bytes (determinism).
    CHECK(util_predictor_text(train_util_predictor(kind, x, y, UtilTrainOptions{})) == text);
  }
  std::string good = constant_predictor(40);
  CHECK(predict_util_pct(parse_util_predictor(good, "p.txt"),
                         Eigen::VectorXd::Zero(
                             static_cast<Eigen::Index>(kUtilFeatureNames.size()))) == Approx(40));
  std::string bad_number = good;
  bad_number.replace(bad_number.find("scale 1"), 7, "scale x");
  CHECK_THROWS_WITH(parse_util_predictor(bad_number, "p.txt"),
                    Catch::Contains("p.txt:5: scale: expected a finite number, got 'x'"));
  std::string truncated = good.substr(0, good.find("intercept"));
  CHECK_THROWS_WITH(parse_util_predictor(truncated, "p.txt"),
                    Catch::Contains("p.txt:6: the file ends where 'intercept' is expected"));
  CHECK_THROWS_WITH(parse_util_predictor("hello\n", "p.txt"),
                    Catch::Contains("p.txt:1: not a dlsim utilization predictor"));
  std::string short_mean = good;
  short_mean.replace(short_mean.find("mean 0 "), 7, "mean ");
  CHECK_THROWS_WITH(parse_util_predictor(short_mean, "p.txt"),
                    Catch::Contains("p.txt:4: mean: expected 8 numbers, got 7"));
}

TEST_CASE("a job of an architecture the predictor was trained on is predicted out of sample",
          "[util][predictor]") {
  // The bundled data: every architecture gets a model trained on the others, and a job of that
  // architecture is predicted by it, exactly as leave-one-architecture-out scores it.
  const std::string dir = DLSIM_SOURCE_DIR_FOR_TESTS "/configs/utilization/";
  UtilDataset d =
      load_util_dataset(dir + "architectures.csv", dir + "dataset.csv", builtin_device_types());
  UtilPredictor p = train_with_held_out(d, UtilModelKind::kRidge, UtilTrainOptions{});
  REQUIRE(p.held_out.size() == d.archs.size());
  Eigen::VectorXd out_of_fold = leave_one_arch_out(d, UtilModelKind::kRidge, UtilTrainOptions{});
  std::size_t differ = 0, clamped = 0;
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    const UtilArchitecture& a = d.archs[static_cast<std::size_t>(d.rows[i].arch_id)];
    const UtilModel& m = util_model_for(p, a.graph);
    REQUIRE(&m != static_cast<const UtilModel*>(&p));
    Eigen::VectorXd row = d.x.row(static_cast<Eigen::Index>(i)).transpose();
    CHECK(predict_util_pct(m, row) == out_of_fold(static_cast<Eigen::Index>(i)));
    // Both bounded to 100% (the heaviest CNNs): the same number whatever the model.
    if (predict_util_pct(m, row) == 100 && predict_util_pct(p, row) == 100)
      ++clamped;
    else if (predict_util_pct(m, row) != predict_util_pct(p, row))
      ++differ;
  }
  // Leaving an architecture out changes every prediction that is not bounded (else the test
  // would prove nothing).
  CHECK(differ + clamped == d.rows.size());
  CHECK(differ > d.rows.size() / 2);
  // Every workload of the HotCloud'20 experiment is of an architecture of the data: each is
  // predicted by a held-out model.
  ModelZoo zoo = load_model_zoo(DLSIM_SOURCE_DIR_FOR_TESTS "/configs/models/hotcloud20.yaml");
  REQUIRE(zoo.models.size() == 27);
  for (const ModelInfo& m : zoo.models) {
    GraphFeatures g{m.gflops_per_sample, m.params_m,         m.conv_layers,
                    m.linear_layers,     m.recurrent_layers, m.activation_mb};
    INFO(m.name);
    CHECK(&util_model_for(p, g) != static_cast<const UtilModel*>(&p));
  }
  // A zoo written from the data rounds to 6 digits (scripts/hotcloud20-data): still matched.
  GraphFeatures rounded = d.archs[0].graph;
  rounded.gflops_per_sample *= 1 + 4e-6;
  CHECK(&util_model_for(p, rounded) == &p.held_out[0].model);
  // A graph of no architecture of the data: the model trained on every row.
  GraphFeatures other = d.archs[0].graph;
  other.conv_layers += 1;
  CHECK(&util_model_for(p, other) == static_cast<const UtilModel*>(&p));
  // The held-out models round-trip through the file.
  std::string text = util_predictor_text(p);
  UtilPredictor back = parse_util_predictor(text, "p.txt");
  CHECK(util_predictor_text(back) == text);
  REQUIRE(back.held_out.size() == p.held_out.size());
  CHECK(back.held_out[3].arch == p.held_out[3].arch);
}

TEST_CASE("a predictor file's held-out models: a bad line is an error naming it",
          "[util][predictor]") {
  // constant_predictor is 7 lines; a held-out block is its line 4 onwards.
  std::string good = constant_predictor(40);
  std::string block = good.substr(good.find("mean"));
  std::string two = good + "held_out a 1 2 3 4 5 6\n" + block;
  CHECK(parse_util_predictor(two, "p.txt").held_out.size() == 1);
  CHECK_THROWS_WITH(parse_util_predictor(good + "held_out a 1 2 3\n" + block, "p.txt"),
                    Catch::Contains("p.txt:8: held_out: expected an architecture and its 6 "
                                    "graph features"));
  CHECK_THROWS_WITH(parse_util_predictor(two + "held_out a 1 2 3 4 5 6\n" + block, "p.txt"),
                    Catch::Contains("p.txt:13: held_out: 'a' twice"));
  CHECK_THROWS_WITH(parse_util_predictor(good + "held_out a 1 2 -3 4 5 6\n" + block, "p.txt"),
                    Catch::Contains("p.txt:8: held_out: a graph feature is negative"));
  CHECK_THROWS_WITH(parse_util_predictor(good + "held_out a 1 2 3 4 5 6\n", "p.txt"),
                    Catch::Contains("p.txt:9: the file ends where 'mean' is expected"));
}

TEST_CASE("dlsim predict and the hotcloud20 runs are byte-identical run to run",
          "[util][determinism]") {
  ScratchDir dir;
  Outcome a = run_dlsim("predict --out " + dir.file("p1.txt"), dir);
  Outcome b = run_dlsim("predict --out " + dir.file("p2.txt"), dir);
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  CHECK(read_file(dir.file("p1.txt")) == read_file(dir.file("p2.txt")));
  CHECK(a.out.substr(0, a.out.find("wrote")) == b.out.substr(0, b.out.find("wrote")));
  // The bundled predictor is this command's output on the bundled data.
  CHECK(read_file(dir.file("p1.txt")) ==
        read_file(DLSIM_SOURCE_DIR_FOR_TESTS "/configs/utilization/predictor-ridge.txt"));
  for (const char* policy : {"util-reactive", "util-proactive"}) {
    std::string p(policy);
    for (const char* run : {"1", "2"}) {
      REQUIRE(run_dlsim("run -q --experiment configs/experiments/hotcloud20.yaml --policy " + p +
                            " --out " + dir.file(p + run),
                        dir)
                  .code == 0);
    }
    for (const char* f : {"/jobs.csv", "/summary.json", "/timeseries.csv"}) {
      CHECK(read_file(dir.file(p + "1") + f) == read_file(dir.file(p + "2") + f));
    }
  }
}

TEST_CASE("a corrupt predictor file stops the run with its line", "[util][predictor]") {
  ScratchDir dir;
  std::string bad = dir.write("bad.txt", "dlsim-util-predictor 1\nmodel ridge\nfeatures x\n");
  Outcome r = run_dlsim("run -q --experiment configs/experiments/hotcloud20.yaml --set "
                        "policy.params.predictor=" +
                            bad + " --out " + dir.file("r"),
                        dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains(bad + ":3: features: expected 'log_gflops_per_sample"));
  Outcome missing = run_dlsim("run -q --experiment configs/experiments/hotcloud20.yaml --set "
                              "policy.params.predictor=no-such-file.txt --out " +
                                  dir.file("m"),
                              dir);
  CHECK(missing.code == 1);
  CHECK_THAT(missing.err,
             Catch::Contains("policy.params.predictor: no-such-file.txt: no such file"));
}
