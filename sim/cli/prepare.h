// Loading everything a run needs, shared by `run` and `validate`.
#pragma once

#include "sim/cli/experiment.h"
#include "sim/runtime/job.h"
#include "workloads/model_zoo.h"

#include <ostream>

namespace dlsim {

struct Prepared {
  Experiment experiment;
  ModelZoo zoo;
  Workload workload;
};

// Reads the experiment, the model zoo and the trace; prints trace warnings and skipped-row
// reasons to `warn`.
Prepared prepare(const ExperimentInputs& inputs, std::ostream& warn);

} // namespace dlsim
