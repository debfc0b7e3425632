// Google Benchmark of the placement hot path: `place` (policies/placement.h) for one pending job
// on the 10,000-GPU benchmark cluster with half of its GPUs taken at random.
#include "policies/placement.h"
#include "sim/cluster/cluster_yaml.h"
#include "sim/engine/rng.h"
#include "sim/runtime/policy.h"
#include "sim/runtime/simulation.h"
#include "workloads/build_workload.h"
#include "workloads/model_zoo.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace dlsim;

constexpr std::uint32_t kFillers = 5000; // 1-GPU jobs that hold half of the 10,000 GPUs

const Cluster& bench_cluster() {
  static const Cluster c =
      load_cluster_file(DLSIM_SOURCE_DIR_FOR_BENCH "/configs/clusters/bench-10k.yaml");
  return c;
}

const ModelZoo& bench_zoo() {
  static const ModelZoo z = load_model_zoo(DLSIM_SOURCE_DIR_FOR_BENCH "/configs/models/zoo.yaml");
  return z;
}

// kFillers 1-GPU jobs, then the probe job (workers x gpus_per_worker), all submitted at 0.
Workload half_full_workload(std::uint32_t workers, std::uint32_t per_worker) {
  Trace t;
  t.file = "<placement bench>";
  for (std::uint32_t i = 0; i <= kFillers; ++i) {
    TraceJob j;
    j.line = i + 2;
    j.duration_s = 3600;
    if (i == kFillers) {
      j.workers = workers;
      j.devices_per_worker = per_worker;
    }
    t.add(j, "job" + std::to_string(i));
  }
  return build_workload(std::move(t), bench_zoo(), bench_cluster(), WorkloadOptions{});
}

// At its one decision, starts every filler on a GPU drawn at random (so free GPUs are scattered
// over the nodes, not packed at one end), then times `place` for the probe job, which it leaves
// pending.
class HalfFullThenMeasure final : public Policy {
public:
  HalfFullThenMeasure(benchmark::State& state, Placement placement)
      : state_(state), placement_(placement) {}

  void schedule(Control& control) override {
    if (done_) return;
    done_ = true;
    std::vector<DeviceId> gpus(control.cluster().devices.size());
    std::iota(gpus.begin(), gpus.end(), DeviceId{0});
    Rng rng = Rng::stream(1, "bench.placement");
    for (std::size_t i = gpus.size(); i > 1; --i)
      std::swap(gpus[i - 1], gpus[rng.below(i)]);
    for (JobId j = 0; j < kFillers; ++j)
      control.start(j, std::span<const DeviceId>(&gpus[j], 1));
    const JobId probe = kFillers;
    for (auto _ : state_) {
      auto devices = place(control, probe, placement_);
      benchmark::DoNotOptimize(devices);
    }
    state_.SetItemsProcessed(state_.iterations());
  }

private:
  benchmark::State& state_;
  Placement placement_;
  bool done_ = false;
};

void run_case(benchmark::State& state, Placement placement) {
  const auto workers = static_cast<std::uint32_t>(state.range(0));
  const auto per_worker = static_cast<std::uint32_t>(state.range(1));
  Workload w = half_full_workload(workers, per_worker);
  HalfFullThenMeasure policy(state, placement);
  Simulation sim(bench_cluster(), w, RuntimeConfig{}, policy, PolicyInfo{"bench", false});
  sim.run(1); // only the decision at time 0 is needed
  state.SetLabel("items = place() calls; args = workers, gpus_per_worker");
}

// Google Benchmark's BM_ names, not the project's style.
void BM_PlaceConsolidate(benchmark::State& state) { // NOLINT(readability-identifier-naming)
  run_case(state, Placement::kConsolidate);
}
void BM_PlaceSpread(benchmark::State& state) { // NOLINT(readability-identifier-naming)
  run_case(state, Placement::kSpread);
}

// 1 GPU, a full node's 4 and 8, and 2 x 8 (the generator's largest class).
BENCHMARK(BM_PlaceConsolidate)->Args({1, 1})->Args({1, 4})->Args({1, 8})->Args({2, 8});
BENCHMARK(BM_PlaceSpread)->Args({1, 1})->Args({4, 1})->Args({2, 8});

} // namespace
