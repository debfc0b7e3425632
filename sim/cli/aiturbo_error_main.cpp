// dlsim-aiturbo-error: the prediction error of aiturbo's step and speed models over a job's life
// (docs/aiturbo.md#prediction-error-over-a-jobs-life). Runs an experiment under aiturbo (or the
// Optimus-like baseline), records every round's predictions of every running job with a loss
// curve, and compares, at 10%, 25%, 50% and 75% of each finished job's iterations, the first
// round's predictions at or past that point with what happened: remaining iterations, seconds
// per iteration over the rest of the job, remaining run time; then (aiturbo) the classifier's
// verdicts at those points against each job's truth.
// Usage: dlsim-aiturbo-error [EXPERIMENT (configs/experiments/aiturbo-mix.yaml)] [TRACE]
//        [--optimus]
#include "policies/aiturbo/aiturbo.h"
#include "policies/aiturbo/prediction_error.h"
#include "sim/cli/policy_setup.h"
#include "sim/cli/prepare.h"
#include "sim/engine/error.h"
#include "sim/runtime/simulation.h"

#include <fmt/format.h>

#include <array>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  using namespace dlsim;
  constexpr const char* kUsage =
      "dlsim-aiturbo-error: usage: dlsim-aiturbo-error [EXPERIMENT] [TRACE] [--optimus]\n";
  try {
    std::vector<std::string> args;
    bool optimus = false;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--optimus") {
        optimus = true;
      } else if (!a.empty() && a[0] == '-') {
        std::cerr << kUsage;
        return 2;
      } else {
        args.push_back(a);
      }
    }
    if (args.size() > 2) {
      std::cerr << kUsage;
      return 2;
    }
    ExperimentInputs in;
    in.experiment_file = args.empty() ? "configs/experiments/aiturbo-mix.yaml" : args[0];
    in.overrides.emplace_back("policy.name", optimus ? "optimus" : "aiturbo");
    if (args.size() > 1) in.overrides.emplace_back("trace.file", args[1]);
    Prepared p = prepare(in, std::cerr);
    const Experiment& e = p.experiment;
    const PolicyEntry& entry = find_policy(e.policy);
    PolicySetup setup = make_policy_setup(entry, parse_placement(e.placement), e.policy_params);
    setup.seed = e.seed;
    std::vector<AiturboPrediction> log;
    auto policy = make_recording_aiturbo(setup, optimus, &log);
    Simulation sim(e.cluster, p.workload, e.runtime, *policy, PolicyInfo{e.policy, false});
    sim.run();
    // The truth of each finished job with a curve: its iterations and the seconds it ran.
    std::vector<JobTruth> truth(p.workload.jobs.size());
    for (JobId j = 0; j < p.workload.jobs.size(); ++j) {
      const JobState& st = sim.state().jobs[j];
      if (p.workload.jobs[j].curve == 0 || st.status != JobStatus::kFinished) continue;
      truth[j] = {p.workload.jobs[j].iterations, run_time_at(st, st.end)};
    }
    constexpr std::array<double, 4> kFractions = {0.10, 0.25, 0.50, 0.75};
    std::cout << format_life_errors(life_errors(log, truth, kFractions));
    if (!optimus) {
      // The classifier on this trace's jobs, which it was not trained on: each job's truth is
      // the generator's construction (draw_loss_curve: predictable = an Optimus curve with
      // noise 0.01; a plateau, or noise 0.25, is not).
      std::vector<std::int8_t> predictable(p.workload.jobs.size(), -1);
      for (JobId j = 0; j < p.workload.jobs.size(); ++j) {
        if (p.workload.jobs[j].curve == 0) continue;
        const LossCurve& c = p.workload.curves[p.workload.jobs[j].curve - 1];
        predictable[j] = c.family == CurveFamily::kOptimus && c.noise <= 0.01 ? 1 : 0;
      }
      std::cout << "\nthe classifier's verdicts on these jobs (held out: not in its training "
                   "data)\n\n"
                << format_classifier_scores(classifier_scores(log, truth, predictable, kFractions));
    }
    return 0;
  } catch (const std::exception& ex) {
    std::cerr << "dlsim-aiturbo-error: error: " << ex.what() << '\n';
    return 1;
  }
}
