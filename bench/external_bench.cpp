// Round trips of the external-scheduler protocol (docs/protocol.md), per second: dlsim's side
// (ChildProcess, one line out and one line back) against two children: a Python loop that
// echoes each line (the pipes and Python's line I/O alone), and the dlsim Python package serving
// a scheduler that decides nothing (plus JSON parsing, the view's update and the reply). The
// message is a decision of the default experiment's size: one arrival, its state, one node.
// Wall time (UseRealTime): the round trip waits on the other process, which the CPU time of
// dlsim's thread does not see.
// docs/performance.md#external-scheduler-round-trips has the figures.
#include "policies/child_process.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {

using dlsim::ChildProcess;

const char* const kHello =
    R"({"type":"hello","protocol":2,"placement":"consolidate","options":{},"seed":1,"oracle":false,"jobs":1000000,"config":{"profile_s":60,"costs":{"start_s":0}},"cluster":{"types":[{"name":"V100","kind":"gpu","memory_gb":16}],"nodes":[{"rack":0,"first_device":0,"device_count":8,"cpu_cores":40,"memory_gb":512}],"devices":[{"type":0,"node":0},{"type":0,"node":0},{"type":0,"node":0},{"type":0,"node":0},{"type":0,"node":0},{"type":0,"node":0},{"type":0,"node":0},{"type":0,"node":0}]}})";

std::string decide(std::int64_t seq) {
  return R"({"type":"decide","seq":)" + std::to_string(seq) + R"(,"t":)" +
         std::to_string(seq * 1000) + R"(,"arrived":[{"id":)" + std::to_string(seq - 1) +
         R"(,"name":"job","submit":0,"workers":1,"devices_per_worker":1,"min_workers":1,"max_workers":1,"ps":0,"ps_cpus":0,"cpus_per_worker":0,"mem_gb_per_worker":0,"gpu_mem_gb":0,"gpu_share_min":1,"gpu_share_max":1,"requested_time_s":0,"priority":0,"user":"u1","queue":"q","model":"resnet50","types":[0]}],"events":[["arrival",)" +
         std::to_string(seq - 1) + R"(]],"jobs":[{"id":)" + std::to_string(seq - 1) +
         R"(,"status":"pending","devices":[],"done":0,"attained":0,"run_time":0,"last_update":0,"iter_s":0,"preemptions":0}],"nodes":[{"id":0,"cpu_free":40,"mem_free":512,"holders":[1,1,0,0,0,0,0,0],"guaranteed":[1,1,0,0,0,0,0,0],"gpu_mem_gb":[0,0,0,0,0,0,0,0]}]})";
}

void round_trips(benchmark::State& state, const std::string& command, bool hello) {
  ChildProcess child(command);
  std::string line;
  if (hello) {
    child.write_line(kHello);
    child.read_line(line, std::chrono::milliseconds(10000));
  }
  std::int64_t seq = 0;
  for (auto _ : state) {
    child.write_line(decide(++seq));
    if (child.read_line(line, std::chrono::milliseconds(10000)) !=
        ChildProcess::ReadStatus::kLine) {
      state.SkipWithError("the child did not answer");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_EchoPython(benchmark::State& state) { // NOLINT(readability-identifier-naming)
  round_trips(state,
              "python3 -c 'import sys\nfor l in sys.stdin:\n sys.stdout.write(l); "
              "sys.stdout.flush()'",
              false);
}
BENCHMARK(BM_EchoPython)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_PythonScheduler(benchmark::State& state) { // NOLINT(readability-identifier-naming)
  const std::string py = std::string(DLSIM_SOURCE_DIR_FOR_BENCH) + "/python";
  round_trips(state,
              "PYTHONPATH=" + py +
                  " python3 -c 'import dlsim\nclass Idle(dlsim.Scheduler):\n def "
                  "schedule(self, c): pass\nIdle().run()'",
              true);
}
BENCHMARK(BM_PythonScheduler)->Unit(benchmark::kMicrosecond)->UseRealTime();

} // namespace
