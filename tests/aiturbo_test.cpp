// Jobs that converge and the aiturbo / optimus policies (docs/aiturbo.md). Every
// expected number is worked out in the comment above it.
#include "policies/aiturbo/borda.h"
#include "policies/aiturbo/moves.h"
#include "policies/aiturbo/prediction_error.h"
#include "policies/speed_model.h"
#include "sim/cli/experiment.h"
#include "sim/cli/policy_setup.h"
#include "sim/engine/error.h"
#include "tests/support/harness.h"
#include "tests/support/invariants.h"
#include "workloads/gen_trace.h"
#include "workloads/learn/feature_rank.h"
#include "workloads/learn/knn.h"
#include "workloads/learn/logistic.h"
#include "workloads/learn/predictability.h"
#include "workloads/learn/predictability_classifier.h"
#include "workloads/learn/step_model.h"
#include "workloads/model_zoo.h"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

using namespace dlsim;
using namespace dlsim::test;

namespace {

constexpr const char* kOneV100 = "nodes:\n  - {count: 1, devices: {V100: 1}}\n";

// The first suspension of each job, in seconds (-1 when never suspended).
struct Suspensions final : RunObserver {
  std::map<std::string, double> first;
  [[nodiscard]] bool wants_job_events() const override { return true; }
  void on_job_event(const JobEvent& e, const View& view) override {
    if (e.action != JobAction::kSuspend) return;
    first.emplace(std::string(view.job_name(e.job)), to_seconds(e.time));
  }
};

struct PolicyRun {
  Cluster cluster;
  Workload workload;
  SimState state;
  Suspensions suspensions;

  // `classifier`: the text of a classifier file to use instead of the `classifier` parameter's
  // (the shipped configs/models/predictability-classifier.txt unless the parameters say "").
  PolicyRun(const std::string& policy, const std::string& cluster_yaml, const std::string& csv,
            const std::string& params, const std::string& classifier = "")
      : cluster(cluster_from_yaml(cluster_yaml)), workload(workload_from_csv(cluster, csv)) {
    const PolicyEntry& entry = find_policy(policy);
    PolicySetup setup = make_policy_setup(entry, Placement::kConsolidate, YAML::Load(params));
    if (!classifier.empty()) setup.data_files = {{"classifier", "test-classifier.txt", classifier}};
    auto p = entry.make(setup);
    Simulation sim(cluster, workload, RuntimeConfig{}, *p, PolicyInfo{entry.name, false});
    InvariantChecker checker;
    sim.add_observer(&checker);
    sim.add_observer(&suspensions);
    sim.run();
    checker.check_final(sim.state());
    state = sim.state();
  }
  [[nodiscard]] double suspended_at(const std::string& name) const {
    auto it = suspensions.first.find(name);
    return it == suspensions.first.end() ? -1 : it->second;
  }
  [[nodiscard]] double end(const std::string& name) const {
    return to_seconds(state.jobs[job_named(workload, name)].end);
  }
};

} // namespace

TEST_CASE("a loss curve gives a job its length", "[aiturbo][loss-curve]") {
  // Optimus form, c = 0: the loss falls to target 0.04 when 1 / (a k + b) = 0.04, i.e.
  // a k + b = 25: k = (25 - 0.25) / 0.001 = 24,750 iterations (ceil). The plateau form adds its
  // 1,000 flat iterations: 25,750.
  Cluster c = cluster_from_yaml(kOneV100);
  Workload w = workload_from_csv(
      c, "id,submit_s,workers,model,duration_s,loss_curve\n"
         "p,0,1,resnet50,,optimus;a=0.001;b=0.25;c=0;target=0.04\n"
         "q,0,1,resnet50,,plateau;a=0.001;b=0.25;c=0;target=0.04;plateau=1000;noise=0.1\n"
         "d,0,1,resnet50,100,\n");
  REQUIRE(w.jobs.size() == 3);
  CHECK(w.jobs[0].iterations == Approx(24750).margin(1));
  CHECK(w.jobs[1].iterations == Approx(25750).margin(1));
  CHECK(w.jobs[0].curve == 1);
  CHECK(w.jobs[1].curve == 2);
  CHECK(w.jobs[2].curve == 0); // a fixed length: 100 s / 0.128 s = 781.25 iterations
  CHECK(w.jobs[2].iterations == Approx(781.25));
  REQUIRE(w.curves.size() == 2);
  // True losses: l(0) = 1 / 0.25 = 4; l(750) = 1 / (0.75 + 0.25) = 1. The plateau job stays at 4
  // for its first 1,000 iterations, then falls the same way: l(1750) = 1.
  CHECK(true_loss(w.curves[0], 0) == 4);
  CHECK(true_loss(w.curves[0], 750) == Approx(1));
  CHECK(true_loss(w.curves[1], 900) == 4);
  CHECK(true_loss(w.curves[1], 1750) == Approx(1));
  // Noise: the same observation twice is the same number, and 10% log-normal noise keeps it
  // within exp(+-0.6) of the truth for any draw under 6 sigma.
  const double o = observed_loss_at(w.curves[1], 7);
  CHECK(o == observed_loss_at(w.curves[1], 7));
  CHECK(o != 4.0);
  CHECK(o / 4.0 == Approx(1).margin(std::exp(0.6) - 1));
}

TEST_CASE("bad loss curves are errors naming the file, line and column", "[aiturbo][loss-curve]") {
  Cluster c = cluster_from_yaml(kOneV100);
  auto error_of = [&](const std::string& curve, const std::string& extra = "") {
    try {
      workload_from_csv(c, "id,submit_s,workers,model,duration_s,loss_curve\np,0,1,resnet50," +
                               extra + "," + curve + "\n");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // c = 0.5 is the asymptote: the loss never gets to 0.3.
  CHECK_THAT(error_of("optimus;a=0.001;b=0.25;c=0.5;target=0.3"),
             Catch::Contains(":2: loss_curve: the curve never reaches its target: target 0.3 is "
                             "not above the asymptote c = 0.5"));
  // (1 / 0.01 - 1) / 1e-12 = 9.9e13 iterations, past the 1e10 cap.
  CHECK_THAT(error_of("optimus;a=1e-12;b=1;c=0;target=0.01"),
             Catch::Contains("loss_curve: the curve needs 9.9e+13 iterations to reach its "
                             "target, more than the 1e+10 a trace may give"));
  CHECK_THAT(error_of("sigmoid;a=1"), Catch::Contains("unknown curve family 'sigmoid'"));
  // Two values of a: which one was meant is unknowable.
  CHECK_THAT(error_of("optimus;a=0.001;b=0.5;a=0.002;target=0.2"),
             Catch::Contains(":2: loss_curve: 'a' is given twice"));
  CHECK_THAT(error_of("optimus;a=1;b=1"), Catch::Contains("target is missing"));
  CHECK_THAT(error_of("optimus;a=-1;b=1;target=1"), Catch::Contains("a: must be positive"));
  CHECK_THAT(error_of("optimus;a=1;b=1;target=1;every=0.5"),
             Catch::Contains("every: must be a whole number"));
  CHECK_THAT(error_of("plateau;a=1;b=1;target=1"), Catch::Contains("plateau is missing"));
  CHECK_THAT(error_of("optimus;a=1;b=1;target=1", "100"),
             Catch::Contains("give loss_curve or duration_s, not both"));
}

TEST_CASE("a policy reads observed losses, and the true curve only as an oracle",
          "[aiturbo][loss-curve]") {
  // ResNet-50 on a V100 does an iteration in 0.128 s; at 64 s the job has done 500 iterations,
  // so with every=100 five losses are observed, at 100, 200, ..., 500: l(100) = 1 / (0.1 + 0.25).
  Cluster c = cluster_from_yaml(kOneV100);
  Workload w = workload_from_csv(c, "id,submit_s,workers,model,loss_curve\n"
                                    "p,0,1,resnet50,optimus;a=0.001;b=0.25;c=0;target=0.04\n");
  std::uint64_t samples = 0;
  double first = 0, target = 0;
  bool oracle_refused = false;
  ScriptPolicy policy({{0, [](Control& ctl) { ctl.start(0, std::vector<DeviceId>{0}); }},
                       {from_seconds(64), [&](Control& ctl) {
                          samples = ctl.loss_samples(0);
                          first = ctl.observed_loss(0, 0);
                          target = ctl.loss_target(0);
                          try {
                            (void)ctl.oracle_loss_curve(0);
                          } catch (const ActionError&) {
                            oracle_refused = true;
                          }
                          CHECK_THROWS_AS(ctl.observed_loss(0, 5), ActionError);
                        }}});
  Simulation sim(c, w, RuntimeConfig{}, policy, PolicyInfo{"script", false});
  sim.run();
  CHECK(samples == 5);
  CHECK(first == Approx(1 / 0.35));
  CHECK(target == 0.04);
  CHECK(oracle_refused);
}

TEST_CASE("the step model recovers an exact Optimus curve", "[aiturbo]") {
  // l(k) = 1 / (0.001 k + 0.25) + 0 sampled at k = 100..1000: the grid's first c is 0, where
  // 1 / l = 0.001 k + 0.25 exactly; the target 0.04 is reached at (25 - 0.25) / 0.001 = 24,750.
  std::vector<double> k, l;
  for (int i = 1; i <= 10; ++i) {
    k.push_back(100.0 * i);
    l.push_back(1.0 / (0.001 * 100 * i + 0.25));
  }
  StepFit fit = fit_step_model(k, l);
  REQUIRE(fit.ok);
  CHECK(fit.c == 0);
  CHECK(fit.a == Approx(0.001));
  CHECK(fit.b == Approx(0.25));
  CHECK(predicted_iterations(fit, 0.04) == Approx(24750));
  // A flat curve (a plateau) predicts no end.
  StepFit flat = fit_step_model(k, std::vector<double>(10, 4.0));
  CHECK(std::isinf(predicted_iterations(flat, 0.04)));
}

TEST_CASE("the speed model fits measured times by ridge least squares", "[aiturbo]") {
  // Prior t0 = 0.4 (a 4-worker job at 0.1 s per iteration), no fixed part, no PS part: at
  // (4 workers, 1 PS) it predicts 0.4 / 4 = 0.1 s.
  SpeedModel m = make_speed_model(0.4, 0, 0);
  CHECK(predict_speed(m, 4, 1) == Approx(0.1));
  // One measurement, 0.12 s at (4, 1): features x = (1/4, 1, 1/1), |x|^2 = 2.0625, ridge weight
  // lambda = 0.5 x 2.0625 / 3 = 0.34375. The ridge solution moves the prior along x:
  // theta = prior + x (0.12 - 0.1) / (|x|^2 + lambda) = prior + x x 0.02 / 2.40625, so the
  // prediction at (4, 1) is 0.1 + 2.0625 x 0.02 / 2.40625 = 0.117143 and at (4, 2) (x = 1/4, 1,
  // 1/2: |.|^2 weight 1.5625) 0.1 + 1.5625 x 0.02 / 2.40625 = 0.112987: more servers, shorter.
  observe_speed(m, 4, 1, 0.12);
  CHECK(predict_speed(m, 4, 1) == Approx(0.1 + 2.0625 * 0.02 / 2.40625));
  CHECK(predict_speed(m, 4, 2) == Approx(0.1 + 1.5625 * 0.02 / 2.40625));
  // A measurement the prior predicts exactly leaves it where it is (residual and penalty 0).
  SpeedModel exact = make_speed_model(0.4, 0, 0);
  observe_speed(exact, 8, 2, 0.05);
  CHECK(predict_speed(exact, 2, 1) == Approx(0.2));
}

TEST_CASE("a Borda count over 3 jobs and 3 criteria", "[aiturbo]") {
  // Lower is better on each criterion; a job scores one point per job it beats.
  //            remaining s   remaining GPU-s   -waited s
  //   J0          100            800             -50
  //   J1          300            300             -900
  //   J2          200            200             -10
  // remaining s:   J0 beats J1, J2 (2); J2 beats J1 (1); J1 0.
  // GPU-s:         J2 beats J0, J1 (2); J1 beats J0 (1); J0 0.
  // waited:        J1 beats J0, J2 (2); J0 beats J2 (1); J2 0.
  // Totals: J0 2 + 0 + 1 = 3, J1 0 + 1 + 2 = 3, J2 1 + 2 + 0 = 3: a three-way tie, which the
  // policy breaks by job id. Change J2's waited to -60 (it beats J0 there): J0 2, J1 3, J2 4.
  std::vector<std::vector<double>> criteria = {{100, 300, 200}, {800, 300, 200}, {-50, -900, -10}};
  CHECK(borda_points(criteria) == std::vector<double>{3, 3, 3});
  criteria[2][2] = -60;
  CHECK(borda_points(criteria) == std::vector<double>{2, 3, 4});
  // Equal values earn equal points: both tied jobs beat the third only.
  CHECK(borda_points({{5, 5, 9}}) == std::vector<double>{1, 1, 0});
}

TEST_CASE("slide 21: JobA V=10 and JobB V=16 adjust their resources", "[aiturbo]") {
  // Remaining service after one unit more or less (reconstructed from the slide's table,
  // docs/aiturbo.md#resource-adjustment):
  //            V   +worker  -worker  +ps  -ps
  //   JobA    10      5       14      9    12
  //   JobB    16     12       22     12    18
  // Gains V - V': A +worker 5, -worker -4, +ps 1, -ps -2; B +worker 4, -worker -6, +ps 4, -ps -2.
  const std::vector<JobService> jobs = {{0, 10, 5, 14, 9, 12}, {1, 16, 12, 22, 12, 18}};
  // One free worker: A gains 5 from it, B 4, so A takes it (V_A 10 -> 5). B cannot also grow and
  // no transfer is left; B adds a server (16 -> 12). Total 26 -> 17.
  auto moves = choose_moves(jobs, 1, 0);
  REQUIRE(moves.size() == 2);
  CHECK((moves[0].job == 0 && moves[0].move == Move::kAddWorker && moves[0].gain == 5));
  CHECK((moves[1].job == 1 && moves[1].move == Move::kAddPs && moves[1].gain == 4));
  // No free worker: moving one from B to A gives Delta = dV_A(+worker) + dV_B(-worker) =
  // (10 - 5) + (16 - 22) = -1 < 0, so no transfer (5 + 22 = 27 > 26); each adds a server instead:
  // A 10 -> 9, B 16 -> 12, total 21.
  moves = choose_moves(jobs, 0, 0);
  REQUIRE(moves.size() == 2);
  CHECK((moves[0].job == 0 && moves[0].move == Move::kAddPs && moves[0].gain == 1));
  CHECK((moves[1].job == 1 && moves[1].move == Move::kAddPs && moves[1].gain == 4));
  // With a minimum gain of 2 (the pause a move costs), A's +ps (gain 1) is not worth it.
  moves = choose_moves(jobs, 0, 2);
  REQUIRE(moves.size() == 1);
  CHECK(moves[0].job == 1);
  // A third job C (V 16) that loses only 1 by giving a worker (-> 17): the transfer C -> A gives
  // Delta = 5 - 1 = 4 > 0, so A grows and C shrinks (10 + 16 -> 5 + 17); B still adds a server.
  const std::vector<JobService> three = {jobs[0], jobs[1], {2, 16, kNoMove, 17, kNoMove, kNoMove}};
  moves = choose_moves(three, 0, 0);
  REQUIRE(moves.size() == 3);
  CHECK((moves[0].job == 0 && moves[0].move == Move::kAddWorker && moves[0].gain == 5));
  CHECK((moves[1].job == 2 && moves[1].move == Move::kRemoveWorker && moves[1].gain == -1));
  CHECK((moves[2].job == 1 && moves[2].move == Move::kAddPs));
}

TEST_CASE("aiturbo: a job that turns predictable moves to the level of its remaining service",
          "[aiturbo]") {
  // One V100. P (ResNet-50, 0.128 s per iteration) converges after 24,750 iterations =
  // 3,168 s; U (no curve) runs 500 s. Both arrive at 0; thresholds [2000] GPU-seconds, rounds
  // every 100 s. Both start unpredictable with 0 attained service, P first (lower id): it runs.
  // P's losses are observed every 10 iterations; its first fit (t = 100, 78 losses) has no
  // earlier prediction to compare with; the second (t = 200) predicts the same exact 24,750
  // (noise-free curve, c = 0 on the grid): P is predictable with (24,750 - 1,562.5) x 0.128 =
  // 2,968 s left on 1 GPU > 2,000: it moves to level 1, behind U (level 0), which preempts it
  // at that round, 200 s.
  const std::string csv = "id,submit_s,workers,model,duration_s,loss_curve\n"
                          "p,0,1,resnet50,,optimus;a=0.001;b=0.25;c=0;target=0.04;every=10\n"
                          "u,0,1,,500,\n";
  PolicyRun with_curve("aiturbo", kOneV100, csv,
                       "{thresholds: [2000], interval_s: 100, min_samples: 8}");
  CHECK(with_curve.suspended_at("p") == 200);
  // Without the curve (the same 3,168 s as a duration) P stays unpredictable: it keeps level 0
  // until its attained service passes 2,000 GPU-seconds, at the round of 2,000 s.
  const std::string plain = "id,submit_s,workers,model,duration_s\n"
                            "p,0,1,resnet50,3168\n"
                            "u,0,1,,500\n";
  PolicyRun without("aiturbo", kOneV100, plain, "{thresholds: [2000], interval_s: 100}");
  CHECK(without.suspended_at("p") == 2000);
  // A threshold above P's remaining 2,968 GPU-seconds keeps it in level 0, and predictable jobs
  // go before unpredictable ones in a level: P is never preempted and ends at 3,168 s.
  PolicyRun high("aiturbo", kOneV100, csv, "{thresholds: [5000], interval_s: 100}");
  CHECK(high.suspended_at("p") == -1);
  CHECK(high.end("p") == Approx(24750 * 0.128).margin(0.01));
}

namespace {

// A classifier file that says 1 / (1 + e^-bias) for every job: one feature, weight 0.
std::string constant_classifier(double bias) {
  return fmt::format("dlsim-predictability-classifier 1\nmodel logistic\nfeatures fit_error\n"
                     "mean 0\nscale 1\nbias {}\nweights 0\n",
                     bias);
}

} // namespace

TEST_CASE("aiturbo: the classifier decides which jobs may be predictable",
          "[aiturbo][classifier]") {
  // The job P and U of the test above (one V100, thresholds [2000], rounds every 100 s). At
  // t = 100 P has shown 78 losses; the shipped classifier (configs/models/
  // predictability-classifier.txt) reads every 2nd (stride 78 / 32 = 2), 32 of them, at
  // iterations 20 .. 640 of the noise-free l(k) = 1 / (0.001 k + 0.25): from 1 / 0.27 = 3.704 to
  // 1 / 0.89 = 1.124, loss_drop = 1 - 1.124 / 3.704 = 0.697; both fits are exact: fit_error 0,
  // pred_change 0. Standardized: (0.697 - 0.650) / 0.287 = 0.16, (0 - 0.244) / 0.367 = -0.66,
  // (0 - 0.475) / 0.425 = -1.12; logit -1.982 + 1.105 x 0.16 + 6.039 x 0.66 + 0.558 x 1.12 =
  // 2.83, P = 0.94 >= 0.5 (likewise at t = 200): P turns predictable at 200 s as before and U
  // preempts it.
  const std::string csv = "id,submit_s,workers,model,duration_s,loss_curve\n"
                          "p,0,1,resnet50,,optimus;a=0.001;b=0.25;c=0;target=0.04;every=10\n"
                          "u,0,1,,500,\n";
  const std::string params = "{thresholds: [2000], interval_s: 100}";
  CHECK(PolicyRun("aiturbo", kOneV100, csv, params).suspended_at("p") == 200);
  // A classifier that calls every job unpredictable (P = 1 / (1 + e^20) = 2e-9 < 0.5): P stays
  // at level 0 by its attained service until that passes 2,000 GPU-seconds, at the round of
  // 2,000 s, as a job without a curve.
  CHECK(PolicyRun("aiturbo", kOneV100, csv, params, constant_classifier(-20)).suspended_at("p") ==
        2000);
  // One that calls every job predictable (1 / (1 + e^-20) > 0.5), and none (classifier: "",
  // the stability rule alone): 200 s.
  CHECK(PolicyRun("aiturbo", kOneV100, csv, params, constant_classifier(20)).suspended_at("p") ==
        200);
  CHECK(PolicyRun("aiturbo", kOneV100, csv, "{thresholds: [2000], interval_s: 100, classifier: ''}")
            .suspended_at("p") == 200);
  // A setup that names a classifier file without its text (not read by dlsim run) is an error.
  const PolicyEntry& entry = find_policy("aiturbo");
  CHECK_THROWS_WITH(
      entry.make(PolicySetup{Placement::kConsolidate, resolve_params(entry, YAML::Node())}),
      Catch::Contains("policy.params.classifier: aiturbo needs the classifier"));
}

TEST_CASE("the predictability classifier file round-trips and bad files name the line",
          "[aiturbo][classifier]") {
  PredictabilityClassifier c;
  c.features = {6, 7}; // loss_drop, fit_error
  c.standardizer.mean = Eigen::Vector2d(0.25, 0.1);
  c.standardizer.scale = Eigen::Vector2d(0.5, 0.05);
  c.logistic.weights = Eigen::Vector2d(1.5, -3);
  c.logistic.bias = 0.125;
  const std::string text = predictability_classifier_text(c);
  CHECK(text == "dlsim-predictability-classifier 1\nmodel logistic\nfeatures loss_drop fit_error\n"
                "mean 0.25 0.1\nscale 0.5 0.05\nbias 0.125\nweights 1.5 -3\n");
  const PredictabilityClassifier back = parse_predictability_classifier(text, "c.txt");
  CHECK(back.features == c.features);
  CHECK(predictability_classifier_text(back) == text);
  // A job with loss_drop 0.75 and fit_error 0.2: z = ((0.75 - 0.25) / 0.5, (0.2 - 0.1) / 0.05)
  // = (1, 2); 1.5 x 1 - 3 x 2 + 0.125 = -4.375; P = 1 / (1 + e^4.375) = 0.01243.
  const std::vector<double> row = {0, 0, 0, 0, 0, 0, 0.75, 0.2, 0};
  CHECK(predictable_probability(back, row) == Approx(1 / (1 + std::exp(4.375))));
  auto bad = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return parse_predictability_classifier(t, "c.txt");
  };
  CHECK_THROWS_WITH(bad("loss_drop fit_error", "loss_drop speed"),
                    "c.txt:3: features: unknown feature 'speed' (expected some of: params_m "
                    "gflops_per_sample batch_size workers ps sync loss_drop fit_error "
                    "pred_change)");
  CHECK_THROWS_WITH(bad("loss_drop fit_error", "fit_error fit_error"),
                    "c.txt:3: features: 'fit_error' is given twice");
  CHECK_THROWS_WITH(bad("scale 0.5 0.05", "scale 0.5 0"), "c.txt:5: scale: value 2 must be > 0");
  CHECK_THROWS_WITH(bad("weights 1.5 -3", "weights 1.5"),
                    "c.txt:7: weights: expected 2 numbers (one per feature), got 1");
  CHECK_THROWS_WITH(bad("bias 0.125\nweights 1.5 -3\n", ""),
                    "c.txt:6: the file ends where 'bias' is expected (truncated?)");
  CHECK_THROWS_WITH(bad("bias 0.125", "bias x"),
                    "c.txt:6: bias: expected a finite number, got 'x'");
  CHECK_THROWS_WITH(bad("dlsim-predictability-classifier 1", "dlsim-util-predictor 1"),
                    Catch::StartsWith("c.txt:1: not a dlsim predictability classifier"));
}

TEST_CASE("the shipped classifier is what dlsim-predictability --out writes",
          "[aiturbo][classifier]") {
  // configs/models/predictability-classifier.txt = `build/dlsim-predictability 2000 1
  // configs/models/zoo.yaml --out configs/models/predictability-classifier.txt`.
  const ModelZoo zoo = load_model_zoo(find_data_file("configs/models/zoo.yaml", ""));
  const PredictabilityData data = predictability_dataset(zoo, 2000, 1, 0.5);
  const ClassifierReport report = evaluate_classifiers(data);
  std::ifstream in(find_data_file("configs/models/predictability-classifier.txt", ""));
  std::stringstream shipped_text;
  shipped_text << in.rdbuf();
  const PredictabilityClassifier shipped =
      parse_predictability_classifier(shipped_text.str(), "predictability-classifier.txt");
  const PredictabilityClassifier trained =
      train_predictability_classifier(data, report.train, report.features);
  // The same features, and every number the same to 12 significant digits rather than to the
  // last bit: glibc's exp and log take other code paths on processors with FMA (tunable
  // glibc.cpu.hwcaps), and on such a machine the training's sums end one unit in the last
  // place apart (weights[1]: ...527367 on one machine, ...527366 on another).
  REQUIRE(trained.features == shipped.features);
  const auto same = [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    REQUIRE(a.size() == b.size());
    for (Eigen::Index i = 0; i < a.size(); ++i)
      CHECK(a[i] == Approx(b[i]).epsilon(1e-12));
  };
  same(trained.standardizer.mean, shipped.standardizer.mean);
  same(trained.standardizer.scale, shipped.standardizer.scale);
  same(trained.logistic.weights, shipped.logistic.weights);
  CHECK(trained.logistic.bias == Approx(shipped.logistic.bias).epsilon(1e-12));
}

TEST_CASE("aiturbo and optimus are deterministic on a generated mix", "[aiturbo]") {
  GenTraceOptions g;
  g.jobs = 40;
  g.seed = 3;
  g.arrival_rate_per_hour = 60;
  g.models = {"resnet50", "vgg16"};
  g.predictable_share = 0.5;
  g.max_duration_s = 20000;
  std::ostringstream out;
  generate_trace(g, out);
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 2, devices: {V100: 4}}\n");
  Workload w = workload_from_csv(c, out.str());
  REQUIRE(w.curves.size() == 40);
  for (const char* policy : {"aiturbo", "optimus"}) {
    // The entry with its data files read as dlsim run reads them (aiturbo's classifier).
    PolicyEntry e = find_policy(policy);
    e.make = [inner = e.make, entry = find_policy(policy)](const PolicySetup& s) {
      PolicySetup full = s;
      full.data_files = make_policy_setup(entry, s.placement, YAML::Node()).data_files;
      return inner(full);
    };
    RunOutput a = run_policy(e, c, w, YAML::Node());
    RunOutput b = run_policy(e, c, w, YAML::Node());
    for (JobId j = 0; j < w.jobs.size(); ++j) {
      CHECK(a.state.jobs[j].end == b.state.jobs[j].end);
      CHECK(a.state.jobs[j].status == JobStatus::kFinished);
    }
  }
}

TEST_CASE("correlations and Gini importance by hand", "[aiturbo][classifier]") {
  // x = 1..5, y = 2 4 5 4 5. Pearson: deviations x -2 -1 0 1 2, y -2 0 1 0 1; sxy = 4 + 2 = 6,
  // sxx = 10, syy = 6: r = 6 / sqrt(60) = 0.7746.
  const std::vector<double> x = {1, 2, 3, 4, 5}, y = {2, 4, 5, 4, 5};
  CHECK(pearson(x, y) == Approx(6 / std::sqrt(60.0)));
  // Spearman: y's ranks 1 2.5 4.5 2.5 4.5 (ties share their mean rank), deviations -2 -0.5 1.5
  // -0.5 1.5; sxy = 4 + 0.5 - 0.5 + 3 = 7, syy = 9: rho = 7 / sqrt(90) = 0.7379.
  CHECK(spearman(x, y) == Approx(7 / std::sqrt(90.0)));
  // Kendall tau-b: of the 10 pairs, 7 concordant, 1 discordant (5 vs 4), 2 tied in y (4-4, 5-5):
  // (7 - 1) / sqrt((7 + 1) x (7 + 1 + 2)) = 6 / sqrt(80) = 0.6708.
  CHECK(kendall_tau_b(x, y) == Approx(6 / std::sqrt(80.0)));
  // Labels 0 0 1 1 on x 1..4: Gini 2 x 0.5 x 0.5 = 0.5 before, a split between 2 and 3 leaves
  // two pure sides: decrease 0.5. A feature that says nothing (constant) decreases nothing.
  CHECK(gini_decrease({1, 2, 3, 4}, {0, 0, 1, 1}) == Approx(0.5));
  CHECK(gini_decrease({7, 7, 7, 7}, {0, 0, 1, 1}) == 0);
}

TEST_CASE("logistic regression and KNN by hand", "[aiturbo][classifier]") {
  // Symmetric separable data: the fit puts 0.5 at x = 0 (bias 0 by symmetry) and the labels on
  // the right sides.
  Eigen::MatrixXd x(4, 1);
  x << -2, -1, 1, 2;
  Eigen::VectorXd y(4);
  y << 0, 0, 1, 1;
  const LogisticModel m = fit_logistic(x, y, 1e-3);
  CHECK(m.bias == Approx(0).margin(1e-9));
  CHECK(logistic_probability(m, Eigen::VectorXd::Constant(1, 0.0)) == Approx(0.5));
  CHECK(logistic_probability(m, Eigen::VectorXd::Constant(1, 2.0)) > 0.9);
  CHECK(logistic_probability(m, Eigen::VectorXd::Constant(1, -2.0)) < 0.1);
  // KNN, k = 3, train 0 1 10 11 labelled 0 0 1 1: from 2 the nearest are 1, 0, 10 (labels 0 0
  // 1): 0; from 9 they are 10, 11, 1: 1.
  Eigen::MatrixXd t(4, 1);
  t << 0, 1, 10, 11;
  CHECK(knn_predict(t, y, Eigen::VectorXd::Constant(1, 2.0), 3) == 0);
  CHECK(knn_predict(t, y, Eigen::VectorXd::Constant(1, 9.0), 3) == 1);
}

TEST_CASE("the classifiers tell generated predictable jobs from the others",
          "[aiturbo][classifier]") {
  // 600 generated jobs, half predictable. The model features and hyper-parameters are drawn
  // independently of predictability, so no correlation measure may select them; the running
  // state separates the families (plateau: no drop; 25% noise: a large fit error).
  const auto data = predictability_dataset(zoo(), 600, 1, 0.5);
  const ClassifierReport r = evaluate_classifiers(data);
  REQUIRE(r.features.size() == 9);
  for (std::size_t f = 0; f < 6; ++f) {
    INFO(r.features[f].name);
    CHECK_FALSE(r.features[f].selected);
  }
  CHECK(r.features[6].selected); // loss_drop
  CHECK(r.features[7].selected); // fit_error
  CHECK(r.train == 420);
  CHECK(r.test == 180);
  CHECK(r.logistic.accuracy > 0.8);
  CHECK(r.knn.accuracy > 0.8);
  // The same data twice gives the same report.
  CHECK(format_report(r) == format_report(evaluate_classifiers(data)));
}

TEST_CASE("prediction error over a job's life by hand", "[aiturbo][life-error]") {
  // Job 0: 1,000 iterations run in 100 s; job 1: no curve (truth 0, left out); job 2: 100
  // iterations in 10 s. Rounds (done, run s, predicted total, predicted s per iteration,
  // predictable), in time order.
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<AiturboPrediction> log = {
      {0, 1, 50, 5, 2000, 0.1, false},   {2, 1, 30, 3, 130, 0.1, true},
      {1, 1, 10, 1, 40, 0.1, true},      {0, 2, 120, 12, 1200, 0.1, false},
      {0, 3, 300, 30, 1100, 0.08, true}, {0, 4, 600, 60, inf, 0.1, true},
      {0, 5, 800, 80, 1000, 0.1, true}};
  const std::vector<JobTruth> truth = {{1000, 100}, {0, 0}, {100, 10}};
  const std::vector<double> fractions = {0.10, 0.25, 0.50, 0.75};
  const std::vector<LifeError> rows = life_errors(log, truth, fractions);
  REQUIRE(rows.size() == 8); // (all, held predictable) per fraction
  // 10%: job 0's first round at or past 100 iterations is done = 120: 880 left in 88 s,
  // predicted 1,080 left: step |1080 - 880| / 880 = 0.2273; speed 88 / 880 = 0.1 as predicted:
  // 0; time |108 - 88| / 88 = 0.2273. Job 2 at done = 30: 70 left in 7 s, predicted 100: step
  // and time 30 / 70 = 0.4286, speed 0. Median of two = their mean 0.3279; 90th percentile by
  // nearest rank = the 2nd = 0.4286. Held predictable: job 2 only.
  CHECK(rows[0].jobs == 2);
  CHECK(rows[0].step_median == Approx((200.0 / 880 + 30.0 / 70) / 2));
  CHECK(rows[0].step_p90 == Approx(30.0 / 70));
  CHECK(rows[0].speed_median == Approx(0).margin(1e-12));
  CHECK(rows[0].time_p90 == Approx(30.0 / 70));
  CHECK((rows[1].predictable && rows[1].jobs == 1));
  CHECK(rows[1].step_median == Approx(30.0 / 70));
  // 25%: job 0 at done = 300: 700 left in 70 s, predicted 800 left: step 100 / 700 = 0.1429;
  // speed |0.08 - 0.1| / 0.1 = 0.2; time |800 x 0.08 - 70| / 70 = 6 / 70 = 0.0857. Job 2 as at
  // 10%. Both held predictable.
  CHECK(rows[2].step_median == Approx((100.0 / 700 + 30.0 / 70) / 2));
  CHECK(rows[2].speed_p90 == Approx(0.2));
  CHECK(rows[2].time_median == Approx((6.0 / 70 + 30.0 / 70) / 2));
  CHECK(rows[3].jobs == 2);
  // 50%: job 0 at done = 600 predicts no end; job 2 has no later round.
  CHECK((rows[4].jobs == 1 && rows[4].no_end == 1 && rows[4].step_median == 0));
  // 75%: job 0 at done = 800 predicts exactly: 200 left in 20 s.
  CHECK((rows[6].jobs == 1 && rows[6].no_end == 0));
  CHECK(rows[6].time_p90 == Approx(0).margin(1e-12));
}

TEST_CASE("the classifier's verdicts are scored at the first round past each point of a job's life",
          "[aiturbo][life-error]") {
  // Four jobs of 100 iterations; truth: 0 and 2 predictable, 1 not, 3 left out (-1).
  //   job 0: a verdict at done 5 (before 10%), then "predictable" at 12: right at 10%;
  //   job 1: "predictable" at 15: wrong; job 2: "not" at 20: wrong;
  //   job 3: a verdict, but its truth is left out; job 0 at 30 (25%) "not": wrong there.
  // At 10%: 3 jobs, 2 predictable; right 1 (job 0): accuracy 1/3; called predictable 2 (jobs 0,
  // 1), 1 of them truly: precision 1/2; 1 of the 2 predictable called: recall 1/2.
  // At 25%: job 0 at 30 ("not", wrong) is the only round at or past 25: accuracy 0, nothing
  // called (precision 0), recall 0 of 1. A round without a verdict (-1) still marks the job seen.
  auto at = [](JobId j, double done, std::int8_t says) {
    AiturboPrediction p;
    p.job = j;
    p.done = done;
    p.classified = says;
    return p;
  };
  const std::vector<AiturboPrediction> log = {at(0, 5, 0),   at(0, 12, 1), at(1, 15, 1),
                                              at(2, 20, 0),  at(3, 20, 1), at(0, 30, 0),
                                              at(1, 60, -1), at(1, 70, 1)};
  const std::vector<JobTruth> truth = {{100, 10}, {100, 10}, {100, 10}, {100, 10}};
  const std::vector<std::int8_t> predictable = {1, 0, 1, -1};
  const std::vector<double> fractions = {0.10, 0.25, 0.50};
  const std::vector<ClassifierScore> rows = classifier_scores(log, truth, predictable, fractions);
  REQUIRE(rows.size() == 3);
  CHECK((rows[0].jobs == 3 && rows[0].predictable == 2));
  CHECK(rows[0].accuracy == Approx(1.0 / 3));
  CHECK(rows[0].precision == Approx(0.5));
  CHECK(rows[0].recall == Approx(0.5));
  CHECK((rows[1].jobs == 1 && rows[1].predictable == 1));
  CHECK((rows[1].accuracy == 0 && rows[1].precision == 0 && rows[1].recall == 0));
  // At 50%: job 1's first round at or past 50 is done 60, with no verdict: no job is scored.
  CHECK(rows[2].jobs == 0);
}

TEST_CASE("dlsim-aiturbo-error: a job alone on its curve is predicted exactly",
          "[aiturbo][life-error]") {
  // P alone on one V100 (ResNet-50, 0.128 s per iteration), the noise-free curve of the tests
  // above: 24,750 iterations, 3,168 s; rounds every 100 s. From its second round (t = 200) the
  // step model holds the exact curve (c = 0 on the grid) and the job never changes shape, so its
  // speed model's prior (0.128 s x 1 worker) is what it measures: at 10% (2,475 iterations, first
  // round at or past it t = 400), 25%, 50% and 75% every error is 0 and P is held predictable.
  ScratchDir dir;
  const std::string trace = dir.file("p.csv");
  const std::string exp = dir.file("p.yaml");
  const std::string out = dir.file("out.txt");
  std::ofstream(trace) << "id,submit_s,workers,model,loss_curve\n"
                          "p,0,1,resnet50,optimus;a=0.001;b=0.25;c=0;target=0.04;every=10\n";
  std::ofstream(exp) << "name: p\ncluster: {nodes: [{count: 1, devices: {V100: 1}}]}\n"
                        "trace: {file: p.csv, format: native}\n"
                        "policy: {name: aiturbo, params: {interval_s: 100}}\n";
  const std::string cmd = "'" DLSIM_AITURBO_ERROR "' '" + exp + "' '" + trace + "' > '" + out + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string text = read_file(out);
  for (const char* done : {"10%", "25%", "50%", "75%"}) {
    for (const char* set : {"all with a fit", "held predictable"}) {
      INFO(text);
      CHECK(text.find(fmt::format("| {} | {} | 1 | 0 | 0.0% / 0.0% | 0.0% / 0.0% | 0.0% / 0.0% |",
                                  done, set)) != std::string::npos);
    }
  }
}
