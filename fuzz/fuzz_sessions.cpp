// libFuzzer target for the hyper-parameter search sessions file (`dlsim gen-trace --sessions`,
// policy automl's `sessions`): load_search_sessions (workloads/hyperparam_search.cpp). It must
// give sessions or throw InputError or a YAML exception (both exit 1 in dlsim). Sessions it gives
// are then taken on as gen-trace takes them, when they have at most kMaxTrials trials in all
// (the reader allows a million per session; drawing those is slow, not interesting): their
// truth table is written and their trials merged into a small background trace, which the native
// reader must accept, since `dlsim run` reads what gen-trace wrote.
#include "fuzz/fuzz_scratch.h"
#include "sim/engine/error.h"
#include "workloads/formats/registry.h"
#include "workloads/hyperparam_search.h"

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr std::uint64_t kMaxTrials = 2'000;

// As gen-trace writes a background trace with models (native CSV).
constexpr const char* kBackground = "id,submit_s,workers,duration_s,model\n"
                                    "b0,0,1,100,resnet50\n"
                                    "b1,50,2,300,bert\n";

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string file = dlsim::fuzz::memory_input("sessions.yaml", data, size);
  std::vector<dlsim::SearchSession> sessions;
  try {
    sessions = dlsim::load_search_sessions(file);
  } catch (const dlsim::InputError&) {
    return 0;
  } catch (const YAML::Exception&) {
    return 0;
  }
  std::uint64_t trials = 0;
  for (const auto& s : sessions)
    trials += s.trials;
  if (trials > kMaxTrials) return 0;

  std::ostringstream truth;
  dlsim::write_trials_truth(sessions, truth);
  dlsim::fuzz::require_utf8(truth.str(), "the trials' truth table");
  std::ostringstream merged;
  dlsim::merge_trials_into_trace(kBackground, sessions, merged);
  const std::string text = merged.str();
  dlsim::fuzz::require_utf8(text, "the merged trace");
  std::string trace_file = dlsim::fuzz::memory_input(
      "merged.csv", reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  try {
    dlsim::Trace trace = dlsim::find_trace_format("native").read(trace_file, {});
    if (trace.jobs.size() != 2 + trials) {
      std::cerr << "fuzz: the merged trace has " << trace.jobs.size() << " jobs, expected "
                << 2 + trials << "\n";
      std::abort();
    }
  } catch (const dlsim::InputError& e) {
    std::cerr << "fuzz: the trace gen-trace --sessions writes is refused: " << e.what() << "\n";
    std::abort();
  }
  return 0;
}
