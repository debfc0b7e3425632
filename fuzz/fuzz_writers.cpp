// libFuzzer target for the result writers (sim/report: jobs.csv, timeseries.csv, events.csv,
// timeline.json, run.yaml, provenance.json, summary.json): a whole `dlsim run` of the bundled
// default experiment (32 V100s) on a native CSV trace that is the input, through run_experiment
// (sim/cli/run_experiment.cpp), with events.csv and timeline.json on. Fuzzed job ids, users,
// models and numbers so reach every writer. The run is bounded (until_s 100,000, a sample every
// 600 s), so that a job submitted in a year does not make a run of a million samples. The first
// byte picks the policy: bit 0 srtf (suspends and resumes), else fifo. The run must write its
// results or throw InputError (exit 1); anything else is a finding, and so is a result file that
// is not UTF-8 or a JSON file that does not parse.
#include "fuzz/fuzz_scratch.h"
#include "sim/cli/run_experiment.h"
#include "sim/engine/error.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  std::string trace = dlsim::fuzz::memory_input("trace.csv", data + 1, size - 1);
  dlsim::ExperimentInputs inputs;
  inputs.overrides = {{"trace.file", trace},
                      {"trace.format", "native"},
                      {"policy.name", (flags & 1) != 0 ? "srtf" : "fifo"},
                      {"until_s", "100000"},
                      {"report.sample_s", "600"}};
  static const std::string out = dlsim::fuzz::scratch_dir() + "/results";
  dlsim::OptionalOutputs optional;
  optional.events = dlsim::FileSwitch::kOn;
  optional.timeline = dlsim::FileSwitch::kOn;
  std::ostringstream warn;
  try {
    dlsim::RunReport report = dlsim::run_experiment(inputs, out, warn, false, optional);
    (void)report;
  } catch (const dlsim::InputError&) {
    return 0;
  }
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    const std::string text = dlsim::fuzz::file_bytes(entry.path().string());
    const std::string name = entry.path().filename().string();
    dlsim::fuzz::require_utf8(text, name);
    if (name.ends_with(".json") && !nlohmann::json::accept(text, /*ignore_comments=*/false)) {
      std::cerr << "fuzz: " << name << " is not valid JSON\n";
      std::abort();
    }
  }
  return 0;
}
