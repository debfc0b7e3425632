// Every policy, in the order `dlsim list policies` prints them. A new policy is its file pair in
// policies/ (the .cpp defining `PolicyEntry NAME_policy()`, picked up by policies/CMakeLists.txt)
// and one line here (docs/adding-a-policy.md).
#pragma once

// clang-format off
#define DLSIM_POLICIES(X) \
  X(fifo)                 \
  X(hot_spares)           \
  X(sjf)                  \
  X(srtf)                 \
  X(fifo_backfill)        \
  X(shortest_gpu_time)    \
  X(tiresias)             \
  X(las)                  \
  X(max_throughput)       \
  X(gavel_max_min)        \
  X(gavel_throughput)     \
  X(gavel_finish_time)    \
  X(gavel_makespan)       \
  X(drf)                  \
  X(k8s_default)          \
  X(elastic_kubeflow)     \
  X(kube_batch)           \
  X(volcano)              \
  X(gandiva)              \
  X(automl)               \
  X(gpu_share)            \
  X(score_random)         \
  X(score_dot_product)    \
  X(score_gpu_clustering) \
  X(score_gpu_packing)    \
  X(score_best_fit)       \
  X(fgd)                  \
  X(util_slot)            \
  X(util_reactive)        \
  X(util_proactive)       \
  X(aiturbo)              \
  X(optimus)              \
  X(external)
// clang-format on
