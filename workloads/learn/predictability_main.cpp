// dlsim-predictability: trains and scores AITurbo's predictability classifiers on generated jobs
// and prints the feature scores and accuracy, precision and recall
// (docs/aiturbo.md#the-classifier). Usage: dlsim-predictability [JOBS (default 2000)] [SEED
// (default 1)] [ZOO (default configs/models/zoo.yaml)]
#include "sim/engine/error.h"
#include "workloads/learn/predictability.h"

#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  try {
    const std::size_t jobs = argc > 1 ? std::stoul(argv[1]) : 2000;
    const std::uint64_t seed = argc > 2 ? std::stoull(argv[2]) : 1;
    const std::string zoo_file = argc > 3 ? argv[3] : "configs/models/zoo.yaml";
    if (jobs < 10 || jobs > 100000) {
      std::cerr << "dlsim-predictability: JOBS must be from 10 to 100000\n";
      return 2;
    }
    const dlsim::ModelZoo zoo = dlsim::load_model_zoo(zoo_file);
    const auto data = dlsim::predictability_dataset(zoo, jobs, seed, 0.5);
    std::cout << dlsim::format_report(dlsim::evaluate_classifiers(data));
    return 0;
  } catch (const std::invalid_argument&) {
    std::cerr << "dlsim-predictability: usage: dlsim-predictability [JOBS] [SEED] [ZOO]\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "dlsim-predictability: error: " << e.what() << '\n';
    return 1;
  }
}
