// Google Benchmark of GPU-utilization prediction (docs/utilization.md#speed): the cost per job of
// building its feature row and predicting with the bundled dataset's ridge and stumps predictors,
// what util-proactive pays once per (job, device type).
#include "sim/cluster/device_catalog.h"
#include "workloads/utilization/dataset.h"
#include "workloads/utilization/predictor.h"

#include <benchmark/benchmark.h>

namespace {

using namespace dlsim;

const UtilDataset& data() {
  static const UtilDataset d = load_util_dataset(
      DLSIM_SOURCE_DIR_FOR_BENCH "/configs/utilization/architectures.csv",
      DLSIM_SOURCE_DIR_FOR_BENCH "/configs/utilization/dataset.csv", builtin_device_types());
  return d;
}

void predict_one_job(benchmark::State& state, UtilModelKind kind) {
  const UtilDataset& d = data();
  const UtilPredictor p = train_util_predictor(kind, d.x, d.util_pct, UtilTrainOptions{});
  const GraphFeatures g{24.6, 25.6, 53, 1, 0, 286.6}; // ResNet-50
  double sum = 0;
  for (auto _ : state) {
    sum += predict_util_pct(p, util_feature_row(g, 32, 10.07));
    benchmark::DoNotOptimize(sum);
  }
}

void predict_ridge(benchmark::State& state) {
  predict_one_job(state, UtilModelKind::kRidge);
}
void predict_stumps(benchmark::State& state) {
  predict_one_job(state, UtilModelKind::kStumps);
}

// Training both predictors and the leave-one-architecture-out evaluation is `dlsim predict`.
void train_ridge(benchmark::State& state) {
  const UtilDataset& d = data();
  for (auto _ : state) {
    UtilPredictor p = train_util_predictor(UtilModelKind::kRidge, d.x, d.util_pct, {});
    benchmark::DoNotOptimize(p.ridge.intercept);
  }
}

} // namespace

BENCHMARK(predict_ridge)->Unit(benchmark::kMicrosecond);
BENCHMARK(predict_stumps)->Unit(benchmark::kMicrosecond);
BENCHMARK(train_ridge)->Unit(benchmark::kMicrosecond);
