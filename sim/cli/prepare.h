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
  // Jobs on devices whose utilization is runtime.default_gpu_util, an assumption: neither the
  // trace nor a model gives one (docs/outputs.md#assumed-utilization).
  std::size_t assumed_util_jobs = 0;
};

// Reads the experiment, the model zoo and the trace; prints trace warnings and skipped-row
// reasons to `warn`.
Prepared prepare(const ExperimentInputs& inputs, std::ostream& warn);

} // namespace dlsim
