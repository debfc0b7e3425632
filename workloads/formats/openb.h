// Alibaba's openb GPU pod lists (cluster-trace-gpu-v2023, Weng et al., USENIX ATC'23):
// one pod per row, fractional GPUs in gpu_milli (docs/traces.md#openb).
#pragma once

#include "sim/config/config_key.h"
#include "workloads/trace.h"

#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

Trace read_openb_trace(const std::string& file, const ReadOptions& options);
// trace.openb_duration_s and trace.openb_replay_pending, bound to `options`.
std::vector<ConfigKey> openb_keys(ReadOptions& options);

// openb's GPU model names as dlsim device types: V100M16 and V100M32 are V100s; the others keep
// their name (A10, G2, G3 are defined by the openb cluster, docs/traces.md#openb).
std::string_view openb_device_type(std::string_view model);

// Run time given to every pod of a pod list that has no time columns (the multigpu files) when
// trace.openb_duration_s is 0: the median observed run time, deletion_time - scheduled_time, of
// the 6,203 scheduled GPU pods of openb_pod_list_default.csv (docs/traces.md#openb).
constexpr double kOpenbUntimedDurationS = 655;

} // namespace dlsim
