// Alibaba PAI 2020 GPU trace (cluster-trace-gpu-v2020, Weng et al., NSDI'22): a directory of
// header-less CSV tables, joined into one job per job_name (docs/traces.md#pai2020).
#pragma once

#include "workloads/trace.h"

#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

Trace read_pai2020_trace(const std::string& directory, const ReadOptions& options);

// The table files the reader reads in `directory` (the required ones first, then the optional
// ones present); an InputError when a required one is missing.
std::vector<std::string> pai2020_table_files(const std::string& directory);

// PAI's gpu_type as a dlsim device type: V100M32 is a V100; MISC (older K40m, K80, M60) and an
// empty type are "any GPU" (empty result); other known names keep their name.
std::string_view pai2020_device_type(std::string_view gpu_type);

} // namespace dlsim
