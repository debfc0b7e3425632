// Every summary metric, in the order their keys follow the run's own keys in summary.json: a new
// metric is its file in this folder, defining `MetricEntry NAME_metric()`, and one line here
// (docs/architecture.md#a-summary-metric).
#pragma once

// clang-format off
#define DLSIM_SUMMARY_METRICS(X) \
  X(device_util)                 \
  X(fairness)                    \
  X(window)                      \
  X(failures)                    \
  X(gpu_sharing)                 \
  X(cpu_cores)
// clang-format on
