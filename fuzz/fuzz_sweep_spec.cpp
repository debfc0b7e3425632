// libFuzzer target for the sweep spec (`dlsim sweep SPEC.yaml`, docs/sweeps.md): load_sweep_spec
// (sim/cli/analysis/sweep_spec.cpp), whose bundled paths resolve against the source tree. It must
// give a sweep or throw InputError or a YAML exception (exit 1 in dlsim). A sweep it gives is then
// taken on as `dlsim sweep` takes it: its plan (sweep.json) is written and read back and must give
// the same runs, and the first run's experiment is loaded (InputError or YAML allowed: a swept
// value may be wrong for the experiment). Plans of more than kMaxPlanRuns runs are not written (the
// loader allows 100,000; writing those per input is slow, not interesting).
#include "fuzz/fuzz_scratch.h"
#include "sim/cli/analysis/sweep_spec.h"
#include "sim/cli/experiment.h"
#include "sim/engine/error.h"

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

constexpr std::size_t kMaxPlanRuns = 200;

[[noreturn]] void fail(const std::string& what) {
  std::cerr << "fuzz: " << what << "\n";
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // In a scratch directory: a relative experiment path in it must not name a descriptor.
  std::string file = dlsim::fuzz::file_in_dir("sweep", "sweep.yaml", data, size);
  dlsim::SweepSpec spec;
  try {
    spec = dlsim::load_sweep_spec(file);
  } catch (const dlsim::InputError&) {
    return 0;
  } catch (const YAML::Exception&) {
    return 0;
  }
  if (spec.runs.empty()) fail("a sweep of no runs was accepted");
  if (spec.runs.size() <= kMaxPlanRuns) {
    static const std::string dir = dlsim::fuzz::scratch_dir() + "/sweep";
    dlsim::SweepSpec plan;
    try {
      dlsim::write_sweep_plan(dir, spec);
      plan = dlsim::read_sweep_plan(dir);
    } catch (const dlsim::InputError& e) {
      fail(std::string("the plan of an accepted sweep does not read back: ") + e.what());
    }
    if (plan.name != spec.name || plan.experiment != spec.experiment || plan.fixed != spec.fixed ||
        plan.keys != spec.keys || plan.runs.size() != spec.runs.size()) {
      fail("the plan read back differs from the sweep");
    }
    for (std::size_t i = 0; i < spec.runs.size(); ++i) {
      if (plan.runs[i].id != spec.runs[i].id || plan.runs[i].overrides != spec.runs[i].overrides)
        fail("run " + std::to_string(i) + " of the plan read back differs from the sweep's");
      if (dlsim::sweep_run_id(plan.runs[i].overrides) != spec.runs[i].id)
        fail("run " + std::to_string(i) + "'s id is not the id of its overrides");
    }
  }
  try {
    dlsim::Experiment e = dlsim::load_experiment(dlsim::sweep_run_inputs(spec, spec.runs[0]));
    (void)e;
  } catch (const dlsim::InputError&) {
  } catch (const YAML::Exception&) {
  }
  return 0;
}
