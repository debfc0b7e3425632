// libFuzzer target for the experiment loader (sim/cli/experiment.cpp): the input is an
// experiment YAML, written to a scratch directory (fuzz_scratch.h), whose bundled paths (configs/,
// traces/) resolve against the source tree. It must load or throw InputError or a YAML exception
// (exit 1 in dlsim); anything else is a bug. The first byte, when it is '@', splits off one
// `--set KEY=VALUE` override line, so the override path is explored too.
#include "fuzz/fuzz_scratch.h"
#include "sim/cli/experiment.h"
#include "sim/engine/error.h"

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  dlsim::ExperimentInputs inputs;
  if (!text.empty() && text[0] == '@') {
    std::size_t eol = text.find('\n');
    std::string line = text.substr(1, eol == std::string::npos ? std::string::npos : eol - 1);
    text = eol == std::string::npos ? "" : text.substr(eol + 1);
    std::size_t eq = line.find('=');
    if (eq != std::string::npos)
      inputs.overrides.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  // In a scratch directory: a relative path in it (cluster: 1) must not name a descriptor.
  inputs.experiment_file =
      dlsim::fuzz::file_in_dir("experiment", "experiment.yaml",
                               reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  try {
    dlsim::Experiment e = dlsim::load_experiment(inputs);
    (void)e;
  } catch (const dlsim::InputError&) {
  } catch (const YAML::Exception&) {
  }
  return 0;
}
