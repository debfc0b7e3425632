#include "workloads/formats/registry.h"

#include "sim/config/nearest_name.h"
#include "sim/engine/error.h"
#include "workloads/formats/gavel.h"
#include "workloads/formats/helios.h"
#include "workloads/formats/muri.h"
#include "workloads/formats/native.h"
#include "workloads/formats/openb.h"
#include "workloads/formats/pai2020.h"
#include "workloads/formats/philly_csv.h"
#include "workloads/formats/philly_json.h"
#include "workloads/formats/pollux.h"
#include "workloads/formats/swf.h"
#include "workloads/formats/tiresias.h"

#include <fmt/format.h>

namespace dlsim {

const std::vector<TraceFormat>& trace_formats() {
  static const std::vector<TraceFormat> formats = {
      {"native",
       "dlsim's CSV: id, submit_s, workers, gpus_per_worker, duration_s or iterations, ...",
       &read_native_trace},
      {"pai2020",
       "Alibaba PAI 2020: a directory of pai_job_table.csv, pai_task_table.csv (+ group tag, "
       "sensor)",
       &read_pai2020_trace, &pai2020_table_files},
      {"openb", "Alibaba openb 2023 pod list: name, cpu_milli, memory_mib, num_gpu, gpu_milli, ...",
       &read_openb_trace, nullptr, &openb_keys},
      {"swf", "Standard Workload Format v2.2 (Parallel Workloads Archive), plain or .gz",
       &read_swf_trace, nullptr, &swf_keys},
      {"philly",
       "Microsoft Philly raw job log (cluster_job_log): a JSON array of jobs with attempts",
       &read_philly_json_trace},
      {"philly-csv",
       "Philly as flattened by Pollux: timestamp, duration, num_gpus, gpu_time, cluster",
       &read_philly_csv_trace},
      {"helios",
       "SenseTime Helios cluster_log.csv: job_id, user, vc, gpu_num, node_num, state, times",
       &read_helios_trace},
      {"tiresias",
       "Tiresias simulator CSV: job_id, num_gpu, submit_time, iterations, model_name, duration",
       &read_tiresias_trace},
      {"muri",
       "Muri simulator CSV: the tiresias columns plus iteration_time, resource_time_0..2, "
       "priority; times in ms",
       &read_muri_trace},
      {"pollux",
       "Pollux workload: name, time, application, num_replicas, batch_size; run times from "
       "the applications' profiles (traces/pollux-profiles)",
       &read_pollux_trace},
      {"gavel",
       "Gavel's and Shockwave's .trace: tab-separated job type, command, ..., total steps, "
       "scale factor, arrival time (7, 10 or 12 fields)",
       &read_gavel_trace},
  };
  return formats;
}

const TraceFormat& find_trace_format(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& f : trace_formats()) {
    if (f.name == name) return f;
    names.push_back(f.name);
  }
  throw InputError(unknown_name_message("trace format", name, names));
}

std::vector<std::string> trace_input_files(const TraceFormat& format, const std::string& path) {
  return format.inputs != nullptr ? format.inputs(path) : std::vector<std::string>{path};
}

} // namespace dlsim
