#include "workloads/formats/registry.h"

#include "sim/engine/error.h"
#include "workloads/formats/native.h"
#include "workloads/formats/openb.h"
#include "workloads/formats/pai2020.h"
#include "workloads/formats/swf.h"

#include <fmt/format.h>

namespace dlsim {

const std::vector<TraceFormat>& trace_formats() {
  static const std::vector<TraceFormat> formats = {
      {"native", "dlsim's CSV: id, submit_s, workers, gpus_per_worker, duration_s or iterations, ...",
       &read_native_trace},
      {"pai2020", "Alibaba PAI 2020: a directory of pai_job_table.csv, pai_task_table.csv (+ group tag, sensor)",
       &read_pai2020_trace},
      {"openb", "Alibaba openb 2023 pod list: name, cpu_milli, memory_mib, num_gpu, gpu_milli, ...",
       &read_openb_trace},
      {"swf", "Standard Workload Format v2.2 (Parallel Workloads Archive), plain or .gz",
       &read_swf_trace},
  };
  return formats;
}

const TraceFormat& find_trace_format(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& f : trace_formats()) {
    if (f.name == name) return f;
    names.push_back(f.name);
  }
  throw InputError(fmt::format("unknown trace format '{}' (known: {})", name, fmt::join(names, ", ")));
}

}  // namespace dlsim
