// dlsim-predictability: trains and scores AITurbo's predictability classifiers on generated jobs
// and prints the feature scores and accuracy, precision and recall; with --out FILE it also
// writes the scored logistic regression for the aiturbo policy (docs/aiturbo.md#the-classifier).
// Usage: dlsim-predictability [JOBS (default 2000)] [SEED (default 1)] [ZOO (default
// configs/models/zoo.yaml)] [--out FILE]
#include "sim/engine/error.h"
#include "workloads/learn/predictability.h"
#include "workloads/learn/predictability_classifier.h"

#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  constexpr const char* kUsage =
      "dlsim-predictability: usage: dlsim-predictability [JOBS] [SEED] [ZOO] [--out FILE]\n";
  try {
    std::vector<std::string> args;
    std::string out_file;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--out") {
        if (i + 1 >= argc) {
          std::cerr << kUsage;
          return 2;
        }
        out_file = argv[++i];
      } else {
        args.push_back(a);
      }
    }
    if (args.size() > 3) {
      std::cerr << kUsage;
      return 2;
    }
    const std::size_t jobs = !args.empty() ? std::stoul(args[0]) : 2000;
    const std::uint64_t seed = args.size() > 1 ? std::stoull(args[1]) : 1;
    const std::string zoo_file = args.size() > 2 ? args[2] : "configs/models/zoo.yaml";
    if (jobs < 10 || jobs > 100000) {
      std::cerr << "dlsim-predictability: JOBS must be from 10 to 100000\n";
      return 2;
    }
    const dlsim::ModelZoo zoo = dlsim::load_model_zoo(zoo_file);
    const auto data = dlsim::predictability_dataset(zoo, jobs, seed, 0.5);
    const dlsim::ClassifierReport report = dlsim::evaluate_classifiers(data);
    if (!out_file.empty()) {
      // The logistic regression scored above: trained on the same first 70% of the jobs.
      const std::string text = dlsim::predictability_classifier_text(
          dlsim::train_predictability_classifier(data, report.train, report.features));
      std::ofstream out(out_file, std::ios::binary);
      out << text;
      out.close();
      if (!out) {
        std::cerr << "dlsim-predictability: error: " << out_file << ": cannot be written\n";
        return 1;
      }
    }
    std::cout << dlsim::format_report(report);
    return 0;
  } catch (const std::invalid_argument&) {
    std::cerr << kUsage;
    return 2;
  } catch (const std::out_of_range&) {
    std::cerr << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "dlsim-predictability: error: " << e.what() << '\n';
    return 1;
  }
}
