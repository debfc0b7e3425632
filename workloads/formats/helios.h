// The Helios traces of SenseTime (S-Lab-System-Group/HeliosData, `cluster_log.csv` of Venus,
// Earth, Saturn and Uranus): one Slurm job per row (docs/traces.md#helios).
#pragma once

#include "workloads/trace.h"

#include <string>

namespace dlsim {

Trace read_helios_trace(const std::string& file, const ReadOptions& options);

} // namespace dlsim
